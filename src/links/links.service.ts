import type { Deps } from '../deps.ts';
import { type EventInput, recordEvents, subscriptionEventName } from '../events/events.service.ts';
import * as queries from './links.queries.ts';
import { type LinkPurpose, signLinkToken, verifyLinkToken } from './tokens.ts';

type LinkDeps = Pick<Deps, 'config' | 'db' | 'queue'>;

/** The 1×1 transparent GIF the open pixel answers with. */
export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** Event data beside emailId: the ids of where the message came from (docs/decisions/sending.md). */
function sourceData(source: Omit<queries.EmailSource, 'contact_id'>): Record<string, string> {
  const data: Record<string, string> = {};
  if (source.campaign_id) data.campaignId = source.campaign_id;
  if (source.template_id) data.templateId = source.template_id;
  if (source.workflow_id) data.workflowId = source.workflow_id;
  return data;
}

/**
 * GET /t/o/{token}: counts an open and records email.opened (`data.firstOpen`). A token that does
 * not verify, or names no record, records nothing; the pixel is served either way. HEAD requests
 * (prefetchers, scanners) are not opens.
 */
export async function trackOpen(deps: LinkDeps, token: string, options: { record: boolean }): Promise<void> {
  const link = verifyLinkToken(deps.config.sessionSecret, token, 'open');
  if (!link?.emailId || !options.record) return;
  const { projectId, emailId } = link;
  await deps.db.transaction(async (tx) => {
    const opened = await queries.recordOpen(tx, projectId, emailId);
    // A deleted contact keeps its email records (contact_id NULL) but can hold no events.
    if (!opened?.contact_id) return;
    const data = { emailId, firstOpen: opened.first_open, ...sourceData(opened) };
    await recordEvents(tx, projectId, [{ contactId: opened.contact_id, name: 'email.opened', emailId, data }]);
  });
}

/**
 * GET /t/c/{token}: counts a click, records email.clicked (`data.url`) and returns the URL to
 * redirect to; null when the token does not verify or its index is not a URL of that message.
 * A HEAD (link scanners) resolves the URL without counting a click.
 */
export async function trackClick(deps: LinkDeps, token: string, options: { record: boolean }): Promise<string | null> {
  const link = verifyLinkToken(deps.config.sessionSecret, token, 'click');
  if (!link?.emailId || link.index === undefined) return null;
  const { projectId, emailId, index } = link;
  if (!options.record) return queries.findMessageUrl(deps.db, projectId, emailId, index);
  return deps.db.transaction(async (tx) => {
    const clicked = await queries.recordClick(tx, projectId, emailId, index);
    if (!clicked) return null;
    if (clicked.contact_id) {
      const data = { emailId, url: clicked.url, ...sourceData(clicked) };
      await recordEvents(tx, projectId, [{ contactId: clicked.contact_id, name: 'email.clicked', emailId, data }]);
    }
    return clicked.url;
  });
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
