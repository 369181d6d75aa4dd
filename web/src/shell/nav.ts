/** The project pages in the side navigation, in the order a team uses them. */
export const NAV_ITEMS: { path: string; label: string }[] = [
  { path: '', label: 'Get started' },
  { path: 'contacts', label: 'Contacts' },
  { path: 'segments', label: 'Segments' },
  { path: 'campaigns', label: 'Campaigns' },
  { path: 'templates', label: 'Templates' },
  { path: 'workflows', label: 'Workflows' },
  { path: 'activity', label: 'Activity' },
  { path: 'inbound', label: 'Inbound' },
  { path: 'analytics', label: 'Analytics' },
  { path: 'suppressions', label: 'Suppressions' },
  { path: 'domains', label: 'Domains' },
  { path: 'keys', label: 'API keys' },
  { path: 'webhooks', label: 'Webhooks' },
  { path: 'settings', label: 'Settings' },
];
