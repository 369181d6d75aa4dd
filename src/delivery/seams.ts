/**
 * The seam between sending and the link capability (src/links/outgoing.ts): `recipientLinks` gives
 * the template variables `unsubscribeUrl`, `subscribeUrl`, `manageUrl` at render time; the worker
 * calls `trackContent` just before a message is built (open pixel and click rewriting as the
 * project's tracking setting allows, never for HEADLESS mail; List-Unsubscribe headers for
 * MARKETING mail; docs/decisions/sending.md) and stores the
 * messages' URLs on their records before they are handed over (markHandedOff).
 */

export { type LinkContext, type MessageUrls, type OutgoingContent, recipientLinks, trackContent } from '../links/outgoing.ts';
export type { TrackingSettings } from '../links/tracking.ts';
