import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { sendAccountMail } from './account-mail.ts';
import { encodeAccountToken } from './account-tokens.ts';
import { findPendingToken } from './email-flows.queries.ts';

export const ACCOUNT_MAIL_JOB = 'accounts.mail';
export type AccountMailData = { tokenId: string };

/**
 * Mails verification and password-reset tokens (docs/decisions/administration.md). The token is
 * rebuilt from its row here, so the job's data holds no secret. A temporary SMTP failure throws,
 * and pg-boss retries with backoff; a token used or expired meanwhile is not mailed.
 */
export function accountsJobs(deps: Deps): JobDefinition<AccountMailData>[] {
  return [
    {
      name: ACCOUNT_MAIL_JOB,
      work: { batchSize: 1 },
      async handle(jobs) {
        for (const job of jobs) {
          const pending = await findPendingToken(deps.db, job.data.tokenId);
          if (!pending) continue;
          const token = encodeAccountToken(deps.config.sessionSecret, { id: pending.id, purpose: pending.purpose, expiresAt: new Date(pending.expires_at) });
          const outcome = await sendAccountMail(deps.config, deps.systemSender, { id: pending.id, to: pending.email, purpose: pending.purpose, token });
          if (outcome.kind === 'retry' || (outcome.kind === 'bounced' && outcome.bounceType === 'soft')) throw new Error(`account mail not sent yet: ${outcome.error}`);
          if (outcome.kind !== 'delivered') deps.log.warn({ tokenId: pending.id, outcome }, 'account mail refused');
        }
      },
    },
  ];
}
