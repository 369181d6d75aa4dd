import { createBrowserRouter } from 'react-router';
import { AuthLayout } from '../shell/AuthLayout.tsx';
import { HomeRedirect } from '../shell/HomeRedirect.tsx';
import { ProjectLayout } from '../shell/ProjectLayout.tsx';
import { RouteError } from '../shell/RouteError.tsx';

/**
 * The app's pages. Paths never collide with API routes (the server falls back to index.html only
 * for GETs no API route answers): project pages live under /p/{projectId}/. Each page is its own
 * chunk, loaded when first visited.
 */
export const router = createBrowserRouter([
  {
    errorElement: <RouteError />,
    children: [
      {
        Component: AuthLayout,
        children: [
          { path: 'login', lazy: () => import('../pages/auth/LoginPage.tsx') },
          { path: 'signup', lazy: () => import('../pages/auth/SignupPage.tsx') },
          { path: 'forgot-password', lazy: () => import('../pages/auth/ForgotPasswordPage.tsx') },
          { path: 'reset-password', lazy: () => import('../pages/auth/ResetPasswordPage.tsx') },
          { path: 'verify-email', lazy: () => import('../pages/auth/VerifyEmailPage.tsx') },
          { path: 'new-project', lazy: () => import('../pages/projects/NewProjectPage.tsx') },
        ],
      },
      { index: true, Component: HomeRedirect },
      {
        path: 'p/:projectId',
        Component: ProjectLayout,
        children: [
          { index: true, lazy: () => import('../pages/overview/OverviewPage.tsx') },
          { path: 'keys', lazy: () => import('../pages/keys/KeysPage.tsx') },
          { path: 'domains', lazy: () => import('../pages/domains/DomainsPage.tsx') },
          { path: 'contacts', lazy: () => import('../pages/contacts/ContactsPage.tsx') },
          { path: 'contacts/import', lazy: () => import('../pages/contacts/ImportPage.tsx') },
          { path: 'contacts/fields', lazy: () => import('../pages/contacts/FieldsPage.tsx') },
          { path: 'contacts/:contactId', lazy: () => import('../pages/contacts/ContactPage.tsx') },
          { path: 'segments', lazy: () => import('../pages/segments/SegmentsPage.tsx') },
          { path: 'segments/:segmentId', lazy: () => import('../pages/segments/SegmentPage.tsx') },
          { path: 'campaigns', lazy: () => import('../pages/campaigns/CampaignsPage.tsx') },
          { path: 'campaigns/:campaignId', lazy: () => import('../pages/campaigns/CampaignPage.tsx') },
          { path: 'templates', lazy: () => import('../pages/templates/TemplatesPage.tsx') },
          { path: 'templates/:templateId', lazy: () => import('../pages/templates/TemplateEditorPage.tsx') },
          { path: 'emails/:emailId', lazy: () => import('../pages/emails/EmailPage.tsx') },
          { path: 'activity', lazy: () => import('../pages/activity/ActivityPage.tsx') },
          { path: 'inbound', lazy: () => import('../pages/inbound/InboundPage.tsx') },
          { path: 'inbound/:inboundId', lazy: () => import('../pages/inbound/InboundMessagePage.tsx') },
          { path: 'webhooks', lazy: () => import('../pages/webhooks/WebhooksPage.tsx') },
          { path: 'webhooks/:endpointId', lazy: () => import('../pages/webhooks/EndpointPage.tsx') },
          { path: 'workflows', lazy: () => import('../pages/workflows/WorkflowsPage.tsx') },
          // The canvas (@xyflow/react, dagre) is in this page's chunk only.
          { path: 'workflows/:workflowId', lazy: () => import('../pages/workflows/WorkflowPage.tsx') },
          { path: 'suppressions', lazy: () => import('../pages/suppressions/SuppressionsPage.tsx') },
          { path: 'analytics', lazy: () => import('../pages/analytics/AnalyticsPage.tsx') },
          { path: 'settings', lazy: () => import('../pages/settings/SettingsPage.tsx') },
          { path: 'account', lazy: () => import('../pages/account/AccountPage.tsx') },
          { path: '*', lazy: () => import('../shell/ProjectNotFoundPage.tsx') },
        ],
      },
      { path: '*', lazy: () => import('../shell/NotFoundPage.tsx') },
    ],
  },
]);
