import { Batcher } from '../db/batcher.ts';
import type { Deps } from '../deps.ts';
import { wakeDelivery } from '../emails/email-queue.ts';
import { AppError } from '../errors.ts';
import { sendKeys } from '../send/send.service.ts';
import { type ParsedSubmission, parseSubmission, type Submission, type Submitted, type WrittenSubmission, writeSubmissions } from './submission.service.ts';

/** Submissions written by one transaction at most (each names up to 50 recipients), as /v1/send's writer. */
const MAX_BATCH = 50;

/**
 * Writes SMTP submissions with group commit (src/db/batcher.ts), as /v1/send's writer does
 * (src/send/send-writer.ts): the messages whose DATA ended while a write ran share the next
 * transaction, whose statements each serve all of them. Each client gets its 250 once the
 * transaction that holds its message committed. One per process, shared by the submission listeners.
 */
export class SubmissionWriter {
  private readonly batcher: Batcher<ParsedSubmission, WrittenSubmission | AppError>;

  constructor(private readonly deps: Deps) {
    this.batcher = new Batcher((submissions) => this.write(submissions), {
      maxInFlight: deps.db.kind === 'postgres' ? 2 : 1,
      maxBatch: MAX_BATCH,
      // Two copies of one Message-ID are never in one write: the second must find the first committed.
      keysOf: (s) => (s.clientMessageId === null ? sendKeys(s.prepared) : [...sendKeys(s.prepared), `${s.projectId} Message-ID ${s.clientMessageId}`]),
    });
  }

  /** Writes one message; throws the AppError of a refusal. */
  async submit(submission: Submission): Promise<Submitted> {
    const written = await this.batcher.submit(await parseSubmission(submission));
    if (written instanceof AppError) throw written;
    return { emailIds: written.emailIds, repeated: written.repeated };
  }

  private async write(submissions: ParsedSubmission[]): Promise<Array<WrittenSubmission | AppError>> {
    const written = await this.deps.db.transaction((tx) => writeSubmissions(this.deps, tx, submissions));
    // After the commit, so the run finds the records; one wake-up serves the whole write.
    if (written.some((s) => !(s instanceof AppError) && s.queued > 0)) wakeDelivery(this.deps.queue, this.deps.log);
    return written;
  }
}
