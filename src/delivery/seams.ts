import type { Config } from '../config.ts';
import type { Queryable } from '../db/index.ts';
import type { ContentType } from '../emails/emails.queries.ts';
import type { RecipientLinks } from '../rendering/render.ts';

/**
 * The seam between sending and the link capability (src/links: tracking, unsubscribe). Both
 * functions are called for every message; what they return is what is rendered and sent.
 */

export type LinkContext = { config: Config; projectId: string; emailId: string; contactId: string | null; contentType: ContentType };

/** Template variables `unsubscribeUrl`, `subscribeUrl`, `manageUrl` of one recipient (contract §5). */
export function recipientLinks(_context: LinkContext): RecipientLinks {
  return {};
}

export type OutgoingContent = { html: string; headers: Record<string, string> };

/**
 * Called by the worker just before a message is built, once per hand-off: open pixel and click
 * rewriting for non-HEADLESS mail, List-Unsubscribe headers for MARKETING mail (contract §6).
 * `db` may be used to persist what the links need (the message's URLs) before the message leaves.
 */
export async function prepareOutgoing(_db: Queryable, _context: LinkContext, content: OutgoingContent): Promise<OutgoingContent> {
  return content;
}
