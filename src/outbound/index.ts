/**
 * Outbound HTTP: the one client (with its SSRF guard) for every call to a URL the server does not
 * own (workflow WEBHOOK steps, customer webhooks, SNS). Build it once with createOutboundClient and
 * take it from Deps (`deps.outbound`); never call fetch/http.request directly for such URLs.
 *
 *   const answer = await deps.outbound.request({ url, method: 'POST', headers, body, maxRedirects: 3, timeoutMs: 10_000 });
 *   // answer: { status, headers, body (first maxBodyBytes), truncated, url, redirects, address }
 *   // throws OutboundError with kind 'refused' | 'scheme' | 'dns' | 'timeout' | 'redirects' | 'network'
 */
export { forbiddenReason, isPublicAddress } from './addresses.ts';
export { createOutboundClient, type OutboundClient, OutboundError, type OutboundErrorKind, type OutboundOptions, type OutboundRequest, type OutboundResponse } from './client.ts';
