import { accountsJobs } from './accounts/accounts.jobs.ts';
import { accountsRoutes } from './accounts/accounts.routes.ts';
import { accountConstraintErrors } from './accounts/accounts.service.ts';
import { emailFlowsRoutes } from './accounts/email-flows.routes.ts';
import { invitationJobs } from './accounts/invitations.jobs.ts';
import { activityRoutes } from './activity/activity.routes.ts';
import { scheduledCampaigns, waitingExecutions } from './activity/upcoming.ts';
import { analyticsJobs, startRollups } from './analytics/analytics.jobs.ts';
import { analyticsRoutes } from './analytics/analytics.routes.ts';
import { billingRoutes } from './billing/billing.routes.ts';
import { campaignsJobs, startCampaignJobs } from './campaigns/campaigns.jobs.ts';
import { campaignsRoutes } from './campaigns/campaigns.routes.ts';
import { campaignsUsage } from './campaigns/campaigns.usage.ts';
import { contactBulkJobs } from './contacts/contact-bulk.jobs.ts';
import { contactBulkRoutes } from './contacts/contact-bulk.routes.ts';
import { contactFieldsJobs } from './contacts/contact-fields.jobs.ts';
import { contactFieldsRoutes } from './contacts/contact-fields.routes.ts';
import { contactImportJobs } from './contacts/contact-import.jobs.ts';
import { contactImportRoutes } from './contacts/contact-import.routes.ts';
import { contactsJobs } from './contacts/contacts.jobs.ts';
import { contactsRoutes } from './contacts/contacts.routes.ts';
import { contactConstraintErrors } from './contacts/contacts.service.ts';
import { dashboardRoutes } from './dashboard/dashboard.routes.ts';
import { deliverabilityRoutes } from './deliverability/deliverability.routes.ts';
import { deliveryJobs, startDelivery, takeOverDelivery } from './delivery/delivery.jobs.ts';
import type { Capability, Registry } from './deps.ts';
import { domainJobs, startDomainChecks } from './domains/domains.jobs.ts';
import { domainsRoutes } from './domains/domains.routes.ts';
import { domainConstraintErrors } from './domains/domains.service.ts';
import { emailTrackingRoutes } from './emails/email-tracking.routes.ts';
import { emailsRoutes } from './emails/emails.routes.ts';
import { eventsJobs, startEventDispatch } from './events/events.jobs.ts';
import { eventsRoutes } from './events/events.routes.ts';
import { inboundJobs, startInboundJobs } from './inbound/inbound.jobs.ts';
import { inboundRoutes } from './inbound/inbound.routes.ts';
import { linksRoutes } from './links/links.routes.ts';
import { platformJobs, startPlatformJobs } from './platform/platform.jobs.ts';
import { projectAdminRoutes } from './projects/admin.routes.ts';
import { apiKeysRoutes } from './projects/api-keys.routes.ts';
import { auditRoutes } from './projects/audit.routes.ts';
import { membersRoutes } from './projects/members.routes.ts';
import { projectsRoutes } from './projects/projects.routes.ts';
import { reputationRoutes } from './projects/security.routes.ts';
import { reputationCheck } from './reputation/reputation.jobs.ts';
import { segmentsJobs, startSegmentRefresh } from './segments/segments.jobs.ts';
import { segmentsRoutes } from './segments/segments.routes.ts';
import { segmentsUsage } from './segments/segments.usage.ts';
import { sendRoutes } from './send/send.routes.ts';
import { sesRoutes } from './ses/ses.routes.ts';
import { smtpRoutes } from './smtp/smtp.routes.ts';
import { suppressionsRoutes } from './suppressions/suppressions.routes.ts';
import { templatesRoutes } from './templates/templates.routes.ts';
import { trackRoutes } from './track/track.routes.ts';
import { uploadsRoutes } from './uploads/uploads.routes.ts';
import { verifyRoutes } from './verify/verify.routes.ts';
import { startWebhookDelivery, takeOverWebhookDelivery, webhookFanOut, webhooksJobs } from './webhooks/webhooks.jobs.ts';
import { webhooksRoutes } from './webhooks/webhooks.routes.ts';
import { workflowsUsage } from './workflows/usage.ts';
import { startWorkflows, takeOverWorkflows, workflowsJobs, workflowTriggers } from './workflows/workflows.jobs.ts';
import { workflowsRoutes } from './workflows/workflows.routes.ts';

/** What the capabilities tell each other (a Capability's fields, src/deps.ts), collected once into `deps.registry`. */
export function composeRegistry(capabilities: readonly Capability[]): Registry {
  const all = <T>(pick: (capability: Capability) => T | undefined): T[] => capabilities.flatMap((capability) => pick(capability) ?? []);
  return Object.freeze({
    events: all((c) => c.events),
    usage: { fields: all((c) => c.usage?.fields), events: all((c) => c.usage?.events), templates: all((c) => c.usage?.templates) },
    upcoming: all((c) => c.upcoming),
    rollups: all((c) => c.rollups),
    constraintErrors: Object.assign({}, ...all((c) => c.constraintErrors)),
  });
}

/** Every capability, in one list (the fields are described on Capability, src/deps.ts); server.ts wires them. */
export const CAPABILITIES: Capability[] = [
  { name: 'accounts', routes: accountsRoutes, constraintErrors: accountConstraintErrors },
  { name: 'projects', routes: projectsRoutes },
  { name: 'members', routes: membersRoutes, jobs: invitationJobs },
  { name: 'api-keys', routes: apiKeysRoutes },
  { name: 'account-email', routes: emailFlowsRoutes, jobs: accountsJobs },
  { name: 'project-admin', routes: projectAdminRoutes },
  { name: 'audit', routes: auditRoutes },
  { name: 'billing', routes: billingRoutes },
  { name: 'reputation', routes: reputationRoutes, rollups: reputationCheck },
  { name: 'activity', routes: activityRoutes },
  { name: 'analytics', routes: analyticsRoutes, jobs: analyticsJobs, start: startRollups },
  { name: 'contacts', routes: contactsRoutes, jobs: contactsJobs, constraintErrors: contactConstraintErrors },
  { name: 'contact-fields', routes: contactFieldsRoutes, jobs: contactFieldsJobs },
  { name: 'contact-bulk', routes: contactBulkRoutes, jobs: contactBulkJobs },
  { name: 'contact-import', routes: contactImportRoutes, jobs: contactImportJobs },
  { name: 'events', routes: eventsRoutes, jobs: eventsJobs, start: startEventDispatch },
  { name: 'track', routes: trackRoutes },
  { name: 'domains', routes: domainsRoutes, jobs: domainJobs, start: startDomainChecks, constraintErrors: domainConstraintErrors },
  { name: 'templates', routes: templatesRoutes },
  { name: 'segments', routes: segmentsRoutes, jobs: segmentsJobs, start: startSegmentRefresh, usage: segmentsUsage },
  { name: 'send', routes: sendRoutes },
  { name: 'campaigns', routes: campaignsRoutes, jobs: campaignsJobs, start: startCampaignJobs, usage: campaignsUsage, upcoming: scheduledCampaigns },
  { name: 'emails', routes: emailsRoutes },
  { name: 'inbound', routes: inboundRoutes, jobs: inboundJobs, start: startInboundJobs },
  { name: 'smtp', routes: smtpRoutes },
  { name: 'deliverability', routes: deliverabilityRoutes },
  { name: 'delivery', jobs: deliveryJobs, start: startDelivery, takeOver: takeOverDelivery },
  { name: 'suppressions', routes: suppressionsRoutes },
  { name: 'platform', jobs: platformJobs, start: startPlatformJobs },
  { name: 'verify', routes: verifyRoutes },
  { name: 'email-tracking', routes: emailTrackingRoutes },
  { name: 'links', routes: linksRoutes },
  { name: 'uploads', routes: uploadsRoutes },
  { name: 'ses', routes: sesRoutes },
  { name: 'webhooks', routes: webhooksRoutes, jobs: webhooksJobs, events: webhookFanOut, start: startWebhookDelivery, takeOver: takeOverWebhookDelivery },
  {
    name: 'workflows',
    routes: workflowsRoutes,
    jobs: workflowsJobs,
    start: startWorkflows,
    takeOver: takeOverWorkflows,
    events: workflowTriggers,
    usage: workflowsUsage,
    upcoming: waitingExecutions,
  },
  // Last: its catch-all GET answers only what no API route does.
  { name: 'dashboard', routes: dashboardRoutes },
];
