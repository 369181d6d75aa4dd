import type { Config } from '../config.ts';
import { instrumentHtml } from './instrument.ts';
import { type LinkUrls, lazyLinkUrls, listUnsubscribeHeaders } from './list-unsubscribe.ts';
import { type ContentType, DEFAULT_TRACKING, type TrackingSettings, tracks } from './tracking.ts';

/**
 * What the delivery worker calls for each message (the seam of src/delivery/seams.ts): the link
 * variables for rendering, then tracking and List-Unsubscribe on the rendered content.
 */

export type LinkContext = {
  config: Pick<Config, 'publicUrl' | 'sessionSecret'>;
  projectId: string;
  emailId: string;
  contactId: string | null;
  contentType: ContentType;
  /** The project's tracking setting; DEFAULT_TRACKING when not given. */
  tracking?: TrackingSettings;
};
export type OutgoingContent = { html: string; headers: Record<string, string> };

/** The URLs of one message's click links, in the order of their indexes (`emails.link_urls`). */
export type MessageUrls = { projectId: string; emailId: string; urls: string[] };

/**
 * `unsubscribeUrl`, `subscribeUrl`, `manageUrl` of one recipient (docs/decisions/templates.md), each signed when
 * the template first reads it; none without a contact.
 */
export function recipientLinks(context: LinkContext): Partial<LinkUrls> {
  if (!context.contactId) return {};
  const { config, projectId, contactId, emailId } = context;
  return lazyLinkUrls({ publicUrl: config.publicUrl, secret: config.sessionSecret, projectId, contactId, emailId });
}

/** The tracked content of one message, and the URLs its click links may lead to (null: none to store). */
export type TrackedContent = OutgoingContent & { urls: MessageUrls | null };

/**
 * Tracking as the project's setting allows for this type (never HEADLESS, which is sent exactly
 * as rendered), and the RFC 8058 headers for MARKETING mail (docs/decisions/sending.md). Pure: the caller stores `urls` on the record (the delivery worker's
 * hand-off statement, for a whole chunk) before the message is handed to the transport, or its
 * clicks would be refused.
 * A List-Unsubscribe the sender set explicitly in the custom headers is kept.
 */
export function trackContent(context: LinkContext, content: OutgoingContent): TrackedContent {
  if (context.contentType === 'HEADLESS') return { ...content, urls: null };
  const { config, projectId, emailId, contactId } = context;
  let { html, headers } = content;
  let urls: MessageUrls | null = null;
  const setting = context.tracking ?? DEFAULT_TRACKING;
  const opens = tracks(setting.opens, context.contentType);
  const clicks = tracks(setting.clicks, context.contentType);
  if (html && (opens || clicks)) {
    const instrumented = instrumentHtml(html, { publicUrl: config.publicUrl, secret: config.sessionSecret, projectId, emailId, contactId: contactId ?? undefined, opens, clicks });
    if (clicks) urls = { projectId, emailId, urls: instrumented.urls };
    html = instrumented.html;
  }
  const own = Object.keys(headers).some((name) => name.toLowerCase() === 'list-unsubscribe');
  if (context.contentType === 'MARKETING' && contactId && !own) {
    const { unsubscribeUrl } = lazyLinkUrls({ publicUrl: config.publicUrl, secret: config.sessionSecret, projectId, contactId, emailId });
    headers = { ...headers, ...listUnsubscribeHeaders(unsubscribeUrl) };
  }
  return { html, headers, urls };
}
