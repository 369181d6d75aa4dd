import type { Deps } from '../deps.ts';
import { type EventInput, recordEvents, subscriptionEventName } from '../events/events.service.ts';
import * as queries from './links.queries.ts';
import { type LinkPurpose, signLinkToken, verifyLinkToken } from './tokens.ts';

type LinkDeps = Pick<Deps, 'config' | 'db' | 'queue'>;

/** Event data beside emailId: the ids of where the message came from (docs/decisions/sending.md). */
function sourceData(source: queries.EmailSource): Record<string, string> {
  const data: Record<string, string> = {};
  if (source.campaign_id) data.campaignId = source.campaign_id;
  if (source.template_id) data.templateId = source.template_id;
  if (source.workflow_id) data.workflowId = source.workflow_id;
  return data;
}

/** The link-page kinds: /u (unsubscribe), /s (subscribe), /m (manage). */
export type PagePurpose = Extract<LinkPurpose, 'unsubscribe' | 'subscribe' | 'manage'>;

export type SubscriptionPage = {
  purpose: PagePurpose;
  /** `confirm`: a GET, nothing changed yet; `done`: the POST applied the change. */
  step: 'confirm' | 'done';
  projectName: string;
  email: string;
  subscribed: boolean;
  snoozedUntil: string | null;
  /** Paths (relative to the public base) the page's buttons post to. */
  actions: { unsubscribe: string; subscribe: string };
};

function actionsFor(secret: string, projectId: string, contactId: string, emailId: string | undefined) {
  const sign = (purpose: 'unsubscribe' | 'subscribe') => signLinkToken(secret, { purpose, projectId, contactId, emailId });
  return { unsubscribe: `u/${sign('unsubscribe')}`, subscribe: `s/${sign('subscribe')}` };
}

/** GET /u, /s, /m: the contact's current state for the page; null when the token or contact is not valid. */
export async function subscriptionPage(deps: LinkDeps, purpose: PagePurpose, token: string): Promise<SubscriptionPage | null> {
  const secret = deps.config.sessionSecret;
  const link = verifyLinkToken(secret, token, purpose);
  if (!link?.contactId) return null;
  const contact = await queries.findLinkContact(deps.db, link.projectId, link.contactId);
  if (!contact) return null;
  return {
    purpose,
    step: 'confirm',
    projectName: contact.project_name,
    email: contact.email,
    subscribed: contact.subscribed,
    snoozedUntil: contact.snoozed_until === null ? null : new Date(contact.snoozed_until).toISOString(),
    actions: actionsFor(secret, link.projectId, link.contactId, link.emailId),
  };
}

/**
 * POST /u (RFC 8058 one-click, or the page's button) and POST /s: applies the change at once and
 * emits contact.unsubscribed / contact.subscribed only when `subscribed` changed (docs/decisions/contacts-and-events.md),
 * with `data.emailId` when the link came in a message.
 */
export async function changeSubscription(deps: LinkDeps, purpose: 'unsubscribe' | 'subscribe', token: string): Promise<SubscriptionPage | null> {
  const secret = deps.config.sessionSecret;
  const link = verifyLinkToken(secret, token, purpose);
  if (!link?.contactId) return null;
  const { projectId, contactId } = link;
  const subscribed = purpose === 'subscribe';
  const changed = await deps.db.transaction(async (tx) => {
    const written = await queries.setSubscriptionFromLink(tx, projectId, contactId, subscribed, link.emailId ?? null);
    if (!written) return null;
    if (written.was_subscribed !== subscribed) {
      const emailId = written.email_found ? link.emailId : undefined;
      const event: EventInput = { contactId, name: subscriptionEventName(subscribed), emailId, data: emailId ? { emailId, ...sourceData(written) } : {} };
      await recordEvents(tx, projectId, [event]);
    }
    return written;
  });
  if (!changed) return null;
  const page = await subscriptionPage(deps, purpose, token);
  return page && { ...page, step: 'done' };
}
