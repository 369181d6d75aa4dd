import { Batcher } from '../db/batcher.ts';
import { retryWithin } from '../db/errors.ts';
import type { HandingRef, Settlement } from '../emails/email-status.queries.ts';
import type { Stream } from './receiver-headers.ts';
import { RESERVED_CONNECTIONS, SMTP_CONNECTIONS } from './transport.ts';

/**
 * Records handed to the transport at once per worker process: one in each SMTP connection of the
 * pool and one marked and queued behind it, so a connection that answers finds its next message
 * ready instead of waiting for a mark to commit (with one per connection: 97 messages/s against
 * 153 before, delivery-rate on PostgreSQL). A hand-off holds its permit from its mark until its
 * answer goes into the hand-off statement, so this is also the most records a kill can leave
 * handed off and unanswered (docs/decisions/sending.md: sent again, with the same Message-ID); at most
 * SMTP_CONNECTIONS of them were in a transaction, the others never left.
 */
export const MAX_HANDED = 2 * (SMTP_CONNECTIONS + RESERVED_CONNECTIONS);

/** Which of the two pools a permit came from, to give it back there. */
export type Permit = 'shared' | 'reserved';

/**
 * Hand-off permits by stream (docs/streams.md): marketing mail takes permits of the shared pool
 * only; transactional mail takes a reserved one, or a shared one, whichever is free first, so a
 * campaign holding every shared permit never makes a transactional message wait behind it, and
 * transactional mail alone uses both pools. Two per SMTP connection of each pool (transport.ts), as
 * above. Waiters are served in arrival order (a chunk keeps its order); a freed reserved permit
 * goes to the first transactional waiter.
 */
export class StreamPermits {
  private readonly free: Record<Permit, number> = { shared: 2 * SMTP_CONNECTIONS, reserved: 2 * RESERVED_CONNECTIONS };
  private readonly waiting: Array<{ stream: Stream; take: (permit: Permit) => void }> = [];

  async acquire(stream: Stream): Promise<Permit> {
    const permit = this.freeFor(stream);
    if (permit) {
      this.free[permit]--;
      return permit;
    }
    return new Promise<Permit>((take) => this.waiting.push({ stream, take }));
  }

  release(permit: Permit): void {
    const next = this.waiting.findIndex((waiter) => permit === 'shared' || waiter.stream === 'transactional');
    if (next === -1) this.free[permit]++;
    else this.waiting.splice(next, 1)[0]!.take(permit);
  }

  private freeFor(stream: Stream): Permit | undefined {
    if (stream === 'marketing') return this.free.shared > 0 ? 'shared' : undefined;
    if (this.free.reserved > 0) return 'reserved';
    return this.free.shared > 0 ? 'shared' : undefined;
  }
}

/** What the hand-off statement of one group commit writes: marks, and answers as settlements. */
export type HandOffWrite = { mark: HandingRef } | { answer: Settlement };

/**
 * The per-message hand-off of one worker process (docs/decisions/sending.md, "Hand-off states"):
 * the permits, and the group-committed statement of marks and answers.
 *
 * A record takes a permit before its mark is submitted and gives it up as its answer is submitted,
 * so the message waiting for a permit is marked in the same statement as the answer that freed it:
 * a hand-off costs one commit and its SMTP transaction, not a commit on each side. The statements
 * run one at a time, each with what was submitted before it, so the database always holds a
 * prefix of the submissions: at most MAX_HANDED records are marked and unanswered, at any moment
 * a process can die.
 */
export class HandOffs {
  readonly permits = new StreamPermits();
  /** True once the process is stopping: no new claim, no new hand-off; what has not started goes back. */
  stopping = false;
  private readonly writes: Batcher<HandOffWrite, boolean>;

  /**
   * `write` commits one statement's marks and settlements and returns the ids still held. A failed
   * answer is written again for up to `answerRetryMs` (`onRetry` hears of each failure).
   */
  constructor(
    write: (marks: HandingRef[], settlements: Settlement[]) => Promise<Set<string>>,
    private readonly answers: { answerRetryMs: number; onRetry: (error: unknown) => void },
  ) {
    this.writes = new Batcher(
      async (items) => {
        const marks = items.flatMap((item) => ('mark' in item ? [item.mark] : []));
        const held = await write(
          marks,
          items.flatMap((item) => ('answer' in item ? [item.answer] : [])),
        );
        return items.map((item) => 'mark' in item && held.has(item.mark.id));
      },
      // One at a time: a later statement never commits before an earlier one (the bound above).
      { maxInFlight: 1, maxBatch: 4 * MAX_HANDED },
    );
  }

  /** Marks a record handed off; false when another worker took it over (it must not be sent). */
  mark(handing: HandingRef): Promise<boolean> {
    return this.writes.submit({ mark: handing });
  }

  /**
   * Records a claim's outcome (and its events); resolves once committed. A write that fails (a lost
   * connection, a deadlock) is tried again, 250 ms later and then twice as long each time, while
   * `answerRetryMs` lasts: the message has gone out, and an answer left unwritten would send it
   * again once its lease ends (docs/decisions/sending.md, "Hand-off states"). Repeating is safe: a
   * settlement is fenced by the claim's attempt number and only changes a SENDING record.
   */
  async answer(settlement: Settlement): Promise<void> {
    await retryWithin(this.answers.answerRetryMs, () => this.writes.submit({ answer: settlement }), this.answers.onRetry);
  }
}
