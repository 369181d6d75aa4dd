import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { sendSystemMail } from './account-mail.ts';
import { findInvitationMail } from './invitations.queries.ts';

export const INVITATION_MAIL_JOB = 'projects.invitation-mail';
export type InvitationMailData = { projectId: string; email: string };

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The invitation: who invited, to which project, and how to join (sign up with this address, then confirm it). */
export function invitationContent(publicUrl: string, mail: { email: string; projectName: string; inviter: string | null; role: string }) {
  const link = `${publicUrl}/signup?email=${encodeURIComponent(mail.email)}`;
  const who = mail.inviter ?? 'A member';
  const subject = `${who} invited you to ${mail.projectName} on Mailroom`;
  const intro = `${who} invited you to work on the project "${mail.projectName}" on Mailroom, as ${mail.role}.`;
  const how = 'Create your account with this address and confirm it from the mail that follows: the project is then in your list.';
  const text = `${intro}\n\n${how}\n\nSign up: ${link}\n\nIf you did not expect this, ignore this email.\n`;
  const html = `<p>${escapeHtml(intro)}</p><p>${escapeHtml(how)}</p><p><a href="${escapeHtml(link)}">Sign up</a></p><p>If you did not expect this, ignore this email.</p>`;
  return { subject, text, html };
}

/**
 * Mails an invitation (docs/decisions/accounts.md, "Invitations") from the system sender, as the
 * password-reset mail is. An invitation withdrawn or accepted meanwhile is not mailed; a temporary
 * SMTP failure throws, and pg-boss retries with backoff.
 */
export function invitationJobs(deps: Deps): JobDefinition<InvitationMailData>[] {
  return [
    {
      name: INVITATION_MAIL_JOB,
      work: { batchSize: 1 },
      async handle(jobs) {
        for (const job of jobs) {
          const found = await findInvitationMail(deps.db, job.data.projectId, job.data.email);
          if (!found) continue;
          const content = invitationContent(deps.config.publicUrl, { email: job.data.email, projectName: found.project_name, inviter: found.inviter, role: found.role });
          const outcome = await sendSystemMail(deps.config, deps.systemSender, { id: randomUUID(), to: job.data.email, ...content });
          if (outcome.kind === 'retry' || (outcome.kind === 'bounced' && outcome.bounceType === 'soft')) throw new Error(`invitation not sent yet: ${outcome.error}`);
          if (outcome.kind !== 'delivered') deps.log.warn({ projectId: job.data.projectId, outcome }, 'invitation refused');
        }
      },
    },
  ];
}
