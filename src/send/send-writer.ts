import { Batcher } from '../db/batcher.ts';
import type { Deps } from '../deps.ts';
import { wakeDelivery } from '../emails/email-queue.ts';
import { AppError } from '../errors.ts';
import { type SendResult, sendKeys, type WrittenSend, writeSends } from './send.service.ts';
import type { PreparedSend } from './send-content.ts';

/** Requests written by one /v1/send transaction at most (each names up to 50 recipients). */
const MAX_BATCH = 50;

/**
 * Writes /v1/send requests with group commit (src/db/batcher.ts): the requests that arrive while
 * a write runs share the next transaction, whose statements each serve all of them (one contact
 * upsert, one records insert, one events insert) instead of eight or more per request. The
 * delivery worker is woken once the write committed; the request never talks to SMTP. One per
 * process, made by the send routes.
 */
export class SendWriter {
  private readonly batcher: Batcher<PreparedSend, WrittenSend | AppError>;

  constructor(private readonly deps: Deps) {
    this.batcher = new Batcher((sends) => this.write(sends), {
      // Two on PostgreSQL: one write renders its records while the other's statements run. The
      // embedded database has one connection, which a second write would only wait for.
      maxInFlight: deps.db.kind === 'postgres' ? 2 : 1,
      maxBatch: MAX_BATCH,
      keysOf: sendKeys,
    });
  }

  async send(prepared: PreparedSend): Promise<SendResult> {
    const written = await this.batcher.submit(prepared);
    if (written instanceof AppError) throw written;
    const { queued, ...result } = written;
    return result;
  }

  private async write(sends: PreparedSend[]): Promise<Array<WrittenSend | AppError>> {
    const written = await this.deps.db.transaction((tx) => writeSends(this.deps, tx, sends));
    // After the commit, so the run finds the records; one wake-up serves the whole write.
    if (written.some((send) => !(send instanceof AppError) && send.queued > 0)) wakeDelivery(this.deps.queue, this.deps.log);
    return written;
  }
}
