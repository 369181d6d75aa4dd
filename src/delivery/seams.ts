/**
 * The seam between sending and the link capability (src/links/outgoing.ts): `recipientLinks` gives
 * the template variables `unsubscribeUrl`, `subscribeUrl`, `manageUrl` at render time; the worker
 * calls `prepareOutgoing` just before a message is built (open pixel and click rewriting for
 * non-HEADLESS mail, List-Unsubscribe headers for MARKETING mail; contract §6).
 */
export { type LinkContext, type OutgoingContent, prepareOutgoing, recipientLinks } from '../links/outgoing.ts';
