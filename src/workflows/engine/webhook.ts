import type { OutboundClient } from '../../outbound/index.ts';

/** docs/decisions/workflows.md: 10 s for the whole call (redirects included), at most 3 redirects, 4 KB of body kept. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const MAX_REDIRECTS = 3;
export const KEPT_BODY_BYTES = 4096;

export type WebhookRequest = { url: string; method: 'POST' | 'PUT' | 'PATCH' | 'GET'; headers: Record<string, string>; body?: string };
export type WebhookResponse = { status: number; body: string; url: string; redirects: number };

/**
 * Calls a WEBHOOK step's endpoint (docs/decisions/workflows.md) through the outbound client, whose SSRF guard
 * refuses private and loopback addresses unless WEBHOOK_ALLOW_PRIVATE. A refused, unreachable or
 * timed-out call throws OutboundError; its message becomes the step's error.
 */
export async function callWebhook(outbound: OutboundClient, request: WebhookRequest): Promise<WebhookResponse> {
  const answer = await outbound.request({ ...request, maxRedirects: MAX_REDIRECTS, timeoutMs: WEBHOOK_TIMEOUT_MS, maxBodyBytes: KEPT_BODY_BYTES });
  return { status: answer.status, body: answer.body, url: answer.url, redirects: answer.redirects };
}
