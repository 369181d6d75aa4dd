/**
 * The header fields receiving providers read to sort, throttle and report on mail
 * (docs/streams.md, "Headers receivers use"), added by the delivery worker to every message it
 * builds. A field the sender set among the custom headers is kept as given.
 */

import type { Stream } from '../emails/emails.queries.ts';

export type { Stream };

/** What the fields are made from: the record's stream and source, its project and its sender. */
export type ReceiverHeaderInput = {
  stream: Stream;
  projectId: string;
  campaignId: string | null;
  /** The record was made by a workflow or by the server itself (no person wrote or sent it). */
  automatic: boolean;
  /** The sender address; its domain is the Feedback-ID's SenderId. */
  from: string;
};

/**
 * Gmail's feedback loop identifier, `a:b:c:SenderId`: the campaign (or the stream, for mail of no
 * campaign), the stream, the project and the sending domain, so a complaint rate that Postmaster
 * Tools reports points at one campaign of one project. Colons separate the fields, so none may
 * hold one (ids are UUIDs; a domain name has none).
 */
export function feedbackId(input: Pick<ReceiverHeaderInput, 'stream' | 'projectId' | 'campaignId' | 'from'>): string {
  const domain = input.from.slice(input.from.lastIndexOf('@') + 1).toLowerCase();
  return [input.campaignId ?? input.stream, input.stream, input.projectId, domain].map((field) => field.replace(/[:\s]/g, '')).join(':');
}

/**
 * `Feedback-ID` on every message; `Precedence: bulk` on marketing mail (RFC 3834 §2: responders
 * do not answer it; receivers class it as bulk); `Auto-Submitted: auto-generated` (RFC 3834 §5)
 * on mail a machine sent without a person in the loop: workflow and system mail. /v1/send is left
 * without it: the application calling it knows whether a person is behind the message, and can
 * set the field in `headers`.
 */
export function receiverHeaders(input: ReceiverHeaderInput): Record<string, string> {
  const headers: Record<string, string> = { 'Feedback-ID': feedbackId(input) };
  if (input.stream === 'marketing') headers.Precedence = 'bulk';
  if (input.automatic) headers['Auto-Submitted'] = 'auto-generated';
  return headers;
}

/** `own` with the receiver fields it does not already carry (names compared case-insensitively). */
export function withReceiverHeaders(own: Record<string, string>, added: Record<string, string>): Record<string, string> {
  const present = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  const merged = { ...own };
  for (const [name, value] of Object.entries(added)) if (!present.has(name.toLowerCase())) merged[name] = value;
  return merged;
}
