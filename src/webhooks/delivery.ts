import { openSecret } from '../auth/secrets.ts';
import { Batcher } from '../db/batcher.ts';
import { retryWithin } from '../db/errors.ts';
import type { Deps } from '../deps.ts';
import { type ClaimedMessage, claimDue, type DisabledEndpoint, dueProjects, nextDueAt, type Outcome, parkMessages, recordOutcomes } from './messages.queries.ts';
import { nextRetryAt } from './schedule.ts';
import { signatureHeader } from './signature.ts';
import { postDelivery } from './target.ts';

/** Deliveries to one endpoint at once, per worker process: a slow endpoint holds these, no more. */
export const PER_ENDPOINT = 4;
/** Deliveries at once per worker process, all endpoints together. */
export const MAX_IN_FLIGHT = 256;
/**
 * A claim's lease: longer than a delivery's 10 s plus recording it. A dead worker's claims are
 * taken over when another worker notices it (src/jobs/instances.ts), at the latest when this ends.
 */
export const LEASE_SECONDS = 30;
/** docs/decisions/webhook-endpoints.md: an endpoint whose every delivery failed this long is disabled. */
export const DISABLE_AFTER_DAYS = 5;
/** A worker with nothing due looks again at least this often (other processes may have queued work). */
const IDLE_LOOK_MS = 30_000;
const BUSY_LOOK_MS = 1000;
/** Claims start at most this often (deliveries wait at most this long for a free slot to be used). */
const CLAIM_INTERVAL_MS = 100;

/**
 * The webhook delivery loop of one worker process (docs/decisions/webhook-endpoints.md; docs/decisions/webhook-endpoints.md).
 * It claims due messages from the database (at most PER_ENDPOINT per endpoint and MAX_IN_FLIGHT in
 * all), sends each on its own, and claims again as soon as one finishes: no batch waits for its
 * slowest member, so a slow or dead endpoint holds its own slots and nothing else. Outcomes are
 * written with group commit. A timer set at the next due message (a retry, a lease's end) wakes it;
 * `kick()` wakes it when new messages were queued.
 */
export class WebhookDelivery {
  private readonly inFlight = new Map<string, number>();
  private total = 0;
  private claiming: Promise<void> | undefined;
  private again = false;
  private lastClaim = 0;
  private soon: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly running = new Set<Promise<void>>();
  private readonly outcomes: Batcher<Outcome, void>;

  constructor(
    private readonly deps: Pick<Deps, 'db' | 'config' | 'log' | 'outbound' | 'instance' | 'metrics'>,
    private readonly onDisabled: (endpoints: DisabledEndpoint[]) => Promise<void>,
  ) {
    this.outcomes = new Batcher((items) => this.record(items), { maxInFlight: 1, maxBatch: 200 });
  }

  /**
   * Claims what is due, at most once per CLAIM_INTERVAL_MS: under load, deliveries finishing one by
   * one fold into one claim of many messages instead of a claim each (on the embedded database every
   * statement holds the one connection the API needs too).
   */
  kick(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    const wait = this.lastClaim + CLAIM_INTERVAL_MS - Date.now();
    if (wait > 0) {
      this.soon ??= setTimeout(() => {
        this.soon = undefined;
        this.kick();
      }, wait).unref();
      return;
    }
    this.lastClaim = Date.now();
    this.claiming = this.claim()
      .catch((error) => {
        this.deps.log.error({ err: error }, 'webhook claim failed; retrying shortly');
        this.arm(1000);
      })
      .finally(() => {
        this.claiming = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Stops claiming and waits for the deliveries in flight and their records. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.soon);
    await this.claiming;
    await Promise.allSettled([...this.running]);
  }

  private async claim(): Promise<void> {
    const free = MAX_IN_FLIGHT - this.total;
    if (free <= 0) return; // a finishing delivery kicks again
    const busy = Object.fromEntries(this.inFlight);
    const claimed = await this.claimDue({ perEndpoint: PER_ENDPOINT, limit: free, busy, leaseSeconds: LEASE_SECONDS, instance: this.deps.instance.id });
    if (this.stopped) return;
    // More may be due: look again after the interval. While deliveries run, each one that finishes
    // kicks; idle, the timer waits for the next retry or lease end.
    if (claimed.length === free) this.again = true;
    else if (this.total > 0) this.arm(BUSY_LOOK_MS);
    else {
      const next = await nextDueAt(this.deps.db);
      this.arm(next ? next.getTime() - Date.now() : IDLE_LOOK_MS);
    }
  }

  /**
   * Claims and starts due messages, oldest first. On Citus, which locks rows only in a statement
   * for one project, the projects among the due messages are read first (no locks), then claimed
   * one after the other, oldest first, until the free slots are taken.
   */
  private async claimDue(options: Parameters<typeof claimDue>[1]): Promise<ClaimedMessage[]> {
    if (this.deps.config.databaseDistribution !== 'citus') {
      const claimed = await claimDue(this.deps.db, options);
      for (const message of claimed) this.start(message);
      return claimed;
    }
    const claimed: ClaimedMessage[] = [];
    for (const projectId of await dueProjects(this.deps.db, options)) {
      if (claimed.length === options.limit || this.stopped) break;
      const busy = Object.fromEntries(this.inFlight);
      const mine = await claimDue(this.deps.db, { ...options, busy, limit: options.limit - claimed.length, projectId });
      for (const message of mine) this.start(message);
      claimed.push(...mine);
    }
    return claimed;
  }

  private arm(delayMs: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => this.kick(), Math.min(Math.max(delayMs, 20), IDLE_LOOK_MS)).unref();
  }

  private start(message: ClaimedMessage): void {
    this.inFlight.set(message.endpoint_id, (this.inFlight.get(message.endpoint_id) ?? 0) + 1);
    this.total++;
    const run = this.deliver(message)
      .catch((error) => this.deps.log.error({ err: error, messageId: message.id }, 'a webhook attempt could not be recorded; it is retried when its lease ends'))
      .finally(() => {
        const left = this.inFlight.get(message.endpoint_id)! - 1;
        if (left === 0) this.inFlight.delete(message.endpoint_id);
        else this.inFlight.set(message.endpoint_id, left);
        this.total--;
        this.running.delete(run);
        this.kick();
      });
    this.running.add(run);
  }

  /** One attempt: sign, POST, judge the answer, record it. */
  private async deliver(message: ClaimedMessage): Promise<void> {
    const body = JSON.stringify(message.payload);
    const timestamp = Math.floor(Date.now() / 1000);
    // Stored sealed (src/auth/secrets.ts); opened only to sign.
    const secrets = (message.previous_secret ? [message.secret, message.previous_secret] : [message.secret]).map((secret) => openSecret(secret, 'webhook_endpoints.secret'));
    const headers = {
      'content-type': 'application/json',
      'webhook-id': message.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, message.id, timestamp, body),
    };
    const at = new Date();
    const answer = await postDelivery(this.deps, { url: message.url, headers, body });
    const durationMs = Date.now() - at.getTime();
    const ok = answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300;
    const retries = ok ? message.retries : message.retries + 1;
    const next = ok ? undefined : nextRetryAt(this.deps.config.webhookRetrySchedule, retries, Date.now());
    const outcome: Outcome['outcome'] = ok ? 'succeeded' : next ? 'retry' : 'failed';
    this.deps.metrics.webhookDelivered(outcome);
    await this.recordWithRetries({
      project_id: message.project_id,
      id: message.id,
      attempt: message.attempts,
      at: at.toISOString(),
      status_code: answer.statusCode,
      duration_ms: durationMs,
      response: answer.response,
      outcome,
      gone: answer.statusCode === 410,
      next_at: next?.toISOString() ?? null,
      retries,
    });
  }

  /**
   * Records an outcome, trying again on a failed write (a lost connection, a deadlock) while the
   * claim's lease lasts: an answer that is not recorded is delivered again (at least once), so it
   * is worth a retry. The delivery keeps its slot meanwhile.
   */
  private recordWithRetries(outcome: Outcome): Promise<void> {
    return retryWithin(
      (LEASE_SECONDS * 1000) / 2,
      () => this.outcomes.submit(outcome),
      (error) => this.deps.log.warn({ err: error, messageId: outcome.id }, 'a webhook attempt could not be recorded; trying again'),
    );
  }

  // biome-ignore lint/suspicious/noConfusingVoidType: one void answer per outcome, as the Batcher of writes expects
  private async record(items: Outcome[]): Promise<void[]> {
    const disabled = await recordOutcomes(this.deps.db, items, DISABLE_AFTER_DAYS);
    if (disabled.length) await parkMessages(this.deps.db, disabled);
    if (disabled.length) await this.onDisabled(disabled).catch((error) => this.deps.log.error({ err: error }, 'could not queue the endpoint-disabled mail'));
    return items.map(() => undefined);
  }
}
