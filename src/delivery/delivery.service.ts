import { randomUUID } from 'node:crypto';
import type { Pacing } from '../deliverability/pacing.ts';
import { isProviderDeferral, type ProviderTally } from '../deliverability/provider-throttle.ts';
import type { Deps } from '../deps.ts';
import { signingKeyFor } from '../domains/domains.service.ts';
import { fillDeferredContent } from '../emails/email-rendering.ts';
import type { ClaimRef } from '../emails/email-status.queries.ts';
import { afterSettled, type EmailTransition, eventsOf, writeTransitions } from '../emails/email-status.ts';
import type { EmailRow } from '../emails/emails.queries.ts';
import { ProjectRotation } from '../jobs/project-rotation.ts';
import { isSoftBounceError, softBounceError } from './bounces.ts';
import { type AttachmentRow, claimDue, dueProjects, dueTransactionalProjects, findTrackingSettings, loadAttachments, renewLeases } from './delivery.queries.ts';
import { HandOffs, MAX_HANDED } from './hand-off.ts';
import { buildMessage } from './mime.ts';
import { receiverHeaders, withReceiverHeaders } from './receiver-headers.ts';
import { type MessageUrls, type TrackingSettings, trackContent } from './seams.ts';
import { signSubmitted, submittedMessages } from './submitted-mime.ts';
import type { Outcome, Transport } from './transport.ts';
import { returnPathFor } from './verp.ts';

/**
 * Records claimed together: one chunk shares its claim and its build, whose per-statement cost
 * dominated with chunks of 20 (a 30k campaign: 566 messages/s with 20, 974 with 100, 1,093 with
 * 200). Its messages then go to the transport one by one as permits free up (hand-off.ts).
 */
const CHUNK = 100;
/**
 * Lanes of claim → build → hand over → settle running at once. While one lane's messages wait for
 * the relay, another builds and signs (libuv's thread pool): the stages overlap instead of taking
 * turns. Each lane claims only what it is about to send, and lanes never write the same rows.
 */
const LANES = 3;
/** Records handed over and unanswered at once per worker: what a kill can leave in doubt. */
export const MAX_IN_FLIGHT = MAX_HANDED;
/**
 * Seconds a claim is held without news; renewed every LEASE_SECONDS / 3 while its chunk is out.
 * A worker that dies is noticed sooner (src/jobs/instances.ts): the lease is the last resort.
 */
export const LEASE_SECONDS = 30;
/** docs/decisions/sending.md: give up after 24 hours of transient failures. */
const GIVE_UP_MS = 24 * 60 * 60 * 1000;
const BACKOFF_BASE_MS = 2_000;
const BACKOFF_MAX_MS = 30 * 60 * 1000;

const refOf = (row: EmailRow): ClaimRef => ({ project_id: row.project_id, id: row.id, attempts: row.attempts });

/** Exponential backoff with jitter: 2 s, 4 s, 8 s … up to 30 minutes. */
export function retryDelayMs(attempts: number): number {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

type RunContext = { deps: Deps; transport: Transport; pacing: Pacing; handOffs: HandOffs; keys: Map<string, ReturnType<typeof signingKeyFor>> };

/** The per-process hand-off state; its answers are settled by `finish`. */
export const handOffsFor = (deps: Deps) =>
  new HandOffs((marks, settlements) => writeTransitions(deps, marks, settlements), {
    // Half a lease: the chunk renews the record's lease until its answer is written.
    answerRetryMs: (LEASE_SECONDS * 1000) / 2,
    onRetry: (error) => deps.log.warn({ err: error }, 'a delivery answer could not be written; trying again'),
  });

/**
 * Delivers due records until none is left, `budgetMs` has passed or the process is stopping, in
 * LANES concurrent lanes. Returns true when it stopped for the budget (more may be due). A chunk
 * holds the oldest due records of every project; on Citus, of one project, the projects taken in
 * turn, oldest first (src/jobs/project-rotation.ts).
 */
export async function deliverDue(deps: Deps, transport: Transport, pacing: Pacing, handOffs: HandOffs, budgetMs: number): Promise<boolean> {
  const context: RunContext = { deps, transport, pacing, handOffs, keys: new Map() };
  const deadline = Date.now() + budgetMs;
  const rotation = deps.config.databaseDistribution === 'citus' ? new ProjectRotation(() => dueProjects(deps.db, CHUNK * LANES * 2)) : undefined;
  const claim = () =>
    rotation ? rotation.claim((projectId) => claimDue(deps.db, CHUNK, LEASE_SECONDS, deps.instance.id, projectId)) : claimDue(deps.db, CHUNK, LEASE_SECONDS, deps.instance.id);
  const lane = async (): Promise<boolean> => {
    while (!handOffs.stopping) {
      const claimed = await claim();
      if (claimed.length) await deliverChunk(context, claimed);
      // A short claim across projects took all that was due; one of a project only emptied that project.
      if (claimed.length < (rotation ? 1 : CHUNK)) return false;
      if (Date.now() > deadline) return true;
    }
    return false;
  };
  let lanesRunning = LANES;
  const done = <T>(work: Promise<T>) => work.finally(() => lanesRunning--);
  const lanes = await Promise.allSettled([...Array.from({ length: LANES }, () => done(lane())), transactionalLane(context, () => lanesRunning > 0)]);
  const failed = lanes.find((result) => result.status === 'rejected');
  // A lane that failed leaves its records to their leases; the error fails the run for the log.
  if (failed) throw failed.reason;
  return lanes.some((result) => result.status === 'fulfilled' && result.value);
}

/** How often the transactional lane looks for new transactional records while a run drains others. */
const TRANSACTIONAL_POLL_MS = 250;
/** Records of one transactional claim: small, so each is handed over at once on the reserved permits. */
const TRANSACTIONAL_CHUNK = 20;

/**
 * The lane that keeps transactional mail from waiting behind marketing mail (docs/streams.md): while
 * the other lanes drain a run (a campaign, perhaps of a million records, claimed oldest first), it
 * claims only transactional records, as they fall due, and hands them over on the permits and
 * connections reserved for them (hand-off.ts, transport.ts). It ends with the other lanes; a
 * transactional record made after that wakes a run of its own (wakeDelivery).
 */
async function transactionalLane(context: RunContext, othersRunning: () => boolean): Promise<boolean> {
  const { deps, handOffs } = context;
  const citus = deps.config.databaseDistribution === 'citus';
  while (!handOffs.stopping && othersRunning()) {
    const claimed = citus
      ? await new ProjectRotation(() => dueTransactionalProjects(deps.db, TRANSACTIONAL_CHUNK)).claim((projectId) =>
          claimDue(deps.db, TRANSACTIONAL_CHUNK, LEASE_SECONDS, deps.instance.id, projectId, true),
        )
      : await claimDue(deps.db, TRANSACTIONAL_CHUNK, LEASE_SECONDS, deps.instance.id, undefined, true);
    if (claimed.length) await deliverChunk(context, claimed);
    else await new Promise((resolve) => setTimeout(resolve, TRANSACTIONAL_POLL_MS));
  }
  return false;
}

async function deliverChunk(context: RunContext, chunk: EmailRow[]): Promise<void> {
  const { deps, handOffs } = context;
  const unsettled = new Map(chunk.map((row) => [row.id, row]));
  const settle = (settlement: Outcomed) => {
    const row = unsettled.get(settlement.id)!;
    if (!settlement.refund) deps.metrics.emailSettled(row, settlement.status === 'QUEUED' ? 'retried' : (settlement.status.toLowerCase() as 'delivered' | 'bounced' | 'failed'));
    // Unsettled, and its lease renewed, until the answer is written (a renewal then changes nothing):
    // a lease that ended while the answer waited would send the message again.
    return handOffs
      .answer({ ...settlement, events: eventsOf(row, settlement) })
      .then(() => afterSettled(deps, row, settlement))
      .finally(() => unsettled.delete(settlement.id));
  };
  // The chunk waits for permits and the relay: its lease is renewed while any of it is unsettled.
  const heartbeat = setInterval(
    () => {
      renewLeases(deps.db, [...unsettled.values()].map(refOf), LEASE_SECONDS).catch((error) => deps.log.warn({ err: error }, 'could not renew a delivery lease'));
    },
    (LEASE_SECONDS * 1000) / 3,
  );
  try {
    const writes: Promise<void>[] = [];
    // SEND_RATE_PER_SECOND and the providers' rates, shared by every worker (src/deliverability/).
    const { going, later, tally } = await context.pacing.pace(chunk);
    // Over a rate: back to the queue, spaced out, without counting as an attempt.
    for (const { row, ms, error } of later)
      writes.push(settle({ ...refOf(row), status: 'QUEUED', error: error ?? null, retryAt: new Date(Date.now() + ms).toISOString(), refund: true }));
    const attachments = going.length ? await loadAttachments(deps.db, going.map(refOf)) : [];
    // Read per chunk, so a changed setting applies to every message built after it (docs/decisions/sending.md).
    const tracking = await findTrackingSettings(deps.db, [...new Set(going.map((row) => row.project_id))]);
    await fillDeferredContent(deps, going);
    const submitted = await submittedMessages(deps.db, going);
    const built = await Promise.all(
      going.map((row) =>
        build(context, row, attachments, tracking.get(row.project_id), submitted).then(
          (message) => ({ row, ...message }),
          (error: Error) => ({ row, error }),
        ),
      ),
    );
    for (const b of built) {
      if ('error' in b) writes.push(settle({ ...refOf(b.row), status: 'FAILED', error: `The message could not be built: ${b.error.message}` }));
      else writes.push(handOver(context, b, settle, tally));
    }
    // Every hand-off of the chunk ends before its heartbeat stops: one that failed must not leave
    // the others, still at the relay or writing their answers, without a lease.
    const ended = await Promise.allSettled(writes);
    await tally?.flush();
    const failed = ended.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * One message's hand-off (docs/decisions/sending.md, "Hand-off states"): a permit, the mark, the
 * transaction, the answer. Holding the permit from the mark to the answer bounds the records a kill
 * leaves marked to MAX_HANDED (hand-off.ts). When the process is stopping, a message that has not
 * started goes back to the queue instead, for another worker at once.
 */
async function handOver(
  context: RunContext,
  message: { row: EmailRow } & BuiltMessage,
  settle: (settlement: Outcomed) => Promise<void>,
  tally: ProviderTally | null,
): Promise<void> {
  const { row, raw, urls, envelopeFrom } = message;
  const { handOffs } = context;
  const permit = await handOffs.permits.acquire(row.stream);
  let answered: Promise<void>;
  try {
    if (handOffs.stopping) answered = settle({ ...refOf(row), status: 'QUEUED', error: row.last_error, retryAt: new Date().toISOString(), refund: true });
    else {
      const held = await handOffs.mark({ ...refOf(row), subject: row.campaign_id ? row.subject : null, linkUrls: urls?.urls ?? null });
      if (!held) return; // taken over by another worker: not ours to send
      const outcome = await context.transport.deliver({ id: row.id, from: envelopeFrom, to: row.to_address, raw, stream: row.stream, messageId: row.message_id ?? undefined });
      context.deps.metrics.emailHandedOff(row);
      tally?.note(row.id, outcome.kind === 'delivered' ? 'delivered' : outcome.kind === 'retry' && isProviderDeferral(outcome.error) ? 'deferred' : 'other');
      answered = settle(settlementFor(row, outcome));
    }
  } finally {
    // Given up as the answer joins the next statement: the next hand-off's mark commits with it.
    handOffs.permits.release(permit);
  }
  await answered;
}

/** The answer as the record's transition (src/emails/email-status.ts). */
type Outcomed = EmailTransition;

function settlementFor(row: EmailRow, outcome: Outcome): Outcomed {
  const ref = refOf(row);
  if (outcome.kind === 'delivered') return { ...ref, status: 'DELIVERED', error: null };
  if (outcome.kind === 'bounced' && outcome.bounceType === 'hard') return { ...ref, status: 'BOUNCED', error: outcome.error };
  if (outcome.kind === 'failed') return { ...ref, status: 'FAILED', error: outcome.error };
  // A soft bounce is retried like a 4xx (docs/decisions/sending.md); the first of a series is announced once.
  const soft = outcome.kind === 'bounced';
  const error = soft ? softBounceError(outcome.error) : outcome.error;
  if (Date.now() - new Date(row.created_at).getTime() >= GIVE_UP_MS) {
    return { ...ref, status: 'FAILED', error: `Gave up after 24 hours of temporary failures; last: ${error}` };
  }
  const retryAt = new Date(Date.now() + retryDelayMs(row.attempts)).toISOString();
  return { ...ref, status: 'QUEUED', error, retryAt, softBounce: soft && !isSoftBounceError(row.last_error) };
}

/** The fields receivers read (receiver-headers.ts) for a record. */
const receiverHeadersOf = (row: EmailRow) =>
  receiverHeaders({ stream: row.stream, projectId: row.project_id, campaignId: row.campaign_id, automatic: row.source_type === 'WORKFLOW', from: row.from_address });

/** `envelopeFrom`: MAIL FROM, the record's VERP return path when the domain has one (docs/smtp.md). */
type BuiltMessage = { raw: Buffer; urls: MessageUrls | null; envelopeFrom: string };

async function build(
  context: RunContext,
  row: EmailRow,
  attachments: AttachmentRow[],
  tracking: TrackingSettings | undefined,
  submitted: Map<string, Buffer>,
): Promise<BuiltMessage> {
  const { deps } = context;
  const keyId = `${row.project_id} ${row.from_address}`;
  if (!context.keys.has(keyId)) context.keys.set(keyId, signingKeyFor(deps.db, row.project_id, row.from_address));
  const key = await context.keys.get(keyId);
  if (!key) throw new Error(`the sender domain of ${row.from_address} is no longer verified in this project`);
  // An SMTP submission leaves as the client wrote it, signed (docs/smtp.md).
  if (row.submission_id) {
    const raw = submitted.get(row.submission_id);
    if (!raw) throw new Error('the submitted message is gone');
    return { raw: await signSubmitted(raw, row, key, receiverHeadersOf(row)), urls: null, envelopeFrom: returnPathFor(deps.config, row, key) };
  }
  if (row.subject === null || row.html === null || row.text_body === null || row.message_id === null) throw new Error('the record has no rendered content');
  const linkContext = { config: deps.config, projectId: row.project_id, emailId: row.id, contactId: row.contact_id, contentType: row.content_type, tracking };
  const outgoing = trackContent(linkContext, { html: row.html, headers: row.headers });
  const raw = await buildMessage(
    {
      messageId: row.message_id,
      from: { address: row.from_address, name: row.from_name },
      to: { address: row.to_address, name: row.to_name },
      replyTo: row.reply_to,
      subject: row.subject,
      html: outgoing.html,
      text: row.text_body,
      headers: withReceiverHeaders(outgoing.headers, receiverHeadersOf(row)),
      attachments: attachments
        .filter((a) => a.email_id === row.id)
        .map((a) => ({ filename: a.filename, contentType: a.content_type, contentId: a.content_id, disposition: a.disposition, content: Buffer.from(a.content) })),
    },
    key,
  );
  return { raw, urls: outgoing.urls, envelopeFrom: returnPathFor(deps.config, row, key) };
}
