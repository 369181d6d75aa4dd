import type { Deps } from '../deps.ts';
import { recordEvents } from '../events/events.service.ts';
import { verifyLinkToken } from '../links/tokens.ts';
import { emailEventData } from './email-feedback.ts';
import { countClick, countOpen, findLinkUrl } from './email-status.queries.ts';

/**
 * Opens and clicks of a delivered record (docs/decisions/sending.md): the tokens its tracked links
 * carry are signed and checked by src/links/tokens.ts; what they change on the record, and the
 * events they emit, are written here.
 */

type TrackingDeps = Pick<Deps, 'config' | 'db'>;

/** The 1×1 transparent GIF the open pixel answers with. */
export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * GET /t/o/{token}: counts an open and records email.opened (`data.firstOpen`). A token that does
 * not verify, or names no record, records nothing; the pixel is served either way. HEAD requests
 * (prefetchers, scanners) are not opens.
 */
export async function trackOpen(deps: TrackingDeps, token: string, options: { record: boolean }): Promise<void> {
  const link = verifyLinkToken(deps.config.sessionSecret, token, 'open');
  if (!link?.emailId || !options.record) return;
  const { projectId, emailId } = link;
  await deps.db.transaction(async (tx) => {
    const opened = await countOpen(tx, projectId, emailId);
    // A deleted contact keeps its email records (contact_id NULL) but can hold no events.
    if (!opened?.contact_id) return;
    const data = { ...emailEventData({ id: emailId, ...opened }), firstOpen: opened.first_open };
    await recordEvents(tx, projectId, [{ contactId: opened.contact_id, name: 'email.opened', emailId, data }]);
  });
}

/**
 * GET /t/c/{token}: counts a click, records email.clicked (`data.url`) and returns the URL to
 * redirect to; null when the token does not verify or its index is not a URL of that message.
 * A HEAD (link scanners) resolves the URL without counting a click.
 */
export async function trackClick(deps: TrackingDeps, token: string, options: { record: boolean }): Promise<string | null> {
  const link = verifyLinkToken(deps.config.sessionSecret, token, 'click');
  if (!link?.emailId || link.index === undefined) return null;
  const { projectId, emailId, index } = link;
  if (!options.record) return findLinkUrl(deps.db, projectId, emailId, index);
  return deps.db.transaction(async (tx) => {
    const clicked = await countClick(tx, projectId, emailId, index);
    if (!clicked) return null;
    if (clicked.contact_id) {
      const data = { ...emailEventData({ id: emailId, ...clicked }), url: clicked.url };
      await recordEvents(tx, projectId, [{ contactId: clicked.contact_id, name: 'email.clicked', emailId, data }]);
    }
    return clicked.url;
  });
}
