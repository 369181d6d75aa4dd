import type { Deps } from '../deps.ts';
import type { EmailRow } from '../emails/emails.queries.ts';

/**
 * Records made without content are rendered here, just before they are built. /v1/send renders
 * every record in the request, but a campaign makes its audience's records with one set-based
 * INSERT … SELECT (contract §9) and leaves `subject`, `html` and `text_body` NULL: they are filled
 * per recipient at delivery, from the campaign and the contact as they are then.
 *
 * Fills the content of the rows that lack it, in place. A row it cannot fill is left without
 * content; build() fails that record alone with "the record has no rendered content".
 */
export async function fillDeferredContent(_deps: Deps, _rows: EmailRow[]): Promise<void> {
  // Nothing is deferred until campaigns exist (src/campaigns).
}
