import { Batcher } from '../db/batcher.ts';
import type { Deps } from '../deps.ts';
import { type HandingRef, markHandedOff, type Settlement } from './delivery.queries.ts';
import { SMTP_CONNECTIONS } from './transport.ts';

/**
 * Records handed to the transport at once per worker process: one in each SMTP connection of the
 * pool and one marked and queued behind it, so a connection that answers finds its next message
 * ready instead of waiting for a mark to commit (with one per connection: 97 messages/s against
 * 153 before, delivery-rate on PostgreSQL). A hand-off holds its permit from its mark to the commit
 * of its answer, so this is also the most records a kill can leave handed off and unanswered
 * (contract §6: sent again, with the same Message-ID); at most SMTP_CONNECTIONS of them were in a
 * transaction, the others never left.
 */
export const MAX_HANDED = 2 * SMTP_CONNECTIONS;

/** A counting semaphore; waiters are served in arrival order (a chunk keeps its order). */
export class Semaphore {
  private readonly waiting: Array<() => void> = [];
  constructor(private free: number) {}

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * The per-message hand-off of one worker process (docs/decisions/sending.md, "Hand-off states"):
 * the permits, and the group-committed writes of marks and answers. A message's mark is committed
 * just before it goes to the transport and its answer right after, but the marks (and answers) of
 * the messages that reach that point in one event-loop turn share one statement, so the hot path
 * costs no round trip per message of its own.
 */
export class HandOffs {
  readonly permits = new Semaphore(MAX_HANDED);
  /** True once the process is stopping: no new claim, no new hand-off; what has not started goes back. */
  stopping = false;
  readonly marks: Batcher<HandingRef, boolean>;
  readonly answers: Batcher<Settlement, undefined>;

  constructor(deps: Deps, finish: (settlements: Settlement[]) => Promise<void>) {
    const maxInFlight = deps.db.kind === 'pglite' ? 1 : 2;
    this.marks = new Batcher(
      async (items) => {
        const held = await markHandedOff(deps.db, items);
        return items.map((item) => held.has(item.id));
      },
      { maxInFlight, maxBatch: MAX_HANDED * 2 },
    );
    this.answers = new Batcher(
      async (items) => {
        await finish(items);
        return items.map(() => undefined);
      },
      { maxInFlight, maxBatch: 200, keysOf: (item) => [item.id] },
    );
  }
}
