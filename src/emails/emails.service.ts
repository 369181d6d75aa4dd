import { getContact } from '../contacts/contacts.service.ts';
import type { Deps } from '../deps.ts';
import { notFound } from '../errors.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, isCursorTimestamp, MAX_PAGE_SIZE, type Page, pageOf } from '../pagination.ts';
import { fillDeferredContent } from './email-rendering.ts';
import { countContactEmails, findEmail, listContactEmails, listReplies } from './emails.queries.ts';
import { type Email, type EmailContent, type EmailDetail, toEmail, toEmailContent, toReply } from './emails.schemas.ts';

/** Replies listed on an email record (docs/inbound.md); GET /inbound?emailId= pages through all of them. */
const REPLIES_SHOWN = 50;

/** docs/decisions/sending.md: GET /emails/{id}, with its replies (docs/inbound.md); another project's record is a 404. */
export async function getEmail(deps: Deps, projectId: string, id: string): Promise<EmailDetail> {
  const row = await findEmail(deps.db, projectId, id);
  if (!row) throw notFound('Email');
  return { ...toEmail(row), replies: (await listReplies(deps.db, projectId, id, REPLIES_SHOWN)).map(toReply) };
}

/**
 * GET /emails/{id}/content: the stored rendering, or for a campaign record (whose body is never
 * stored) a rendering now, the way delivery renders it; the subject stays the one sent once stored.
 */
export async function getEmailContent(deps: Deps, projectId: string, id: string): Promise<EmailContent> {
  const row = await findEmail(deps.db, projectId, id);
  if (!row) throw notFound('Email');
  if (row.html !== null) return toEmailContent(row, 'stored');
  const sentSubject = row.subject;
  await fillDeferredContent(deps, [row]);
  return toEmailContent({ ...row, subject: sentSubject ?? row.subject }, 'now');
}

/** GET /contacts/{id}/emails: the contact's records, newest first; another project's contact is a 404. */
export async function listEmailsOfContact(deps: Deps, projectId: string, contactId: string, input: { limit?: number; cursor?: string }): Promise<Page<Email>> {
  await getContact(deps, projectId, contactId);
  const secret = deps.config.sessionSecret;
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const sort = 'contact-emails';
  const before = input.cursor ? decodeCursor(secret, input.cursor, { sort, dir: 'desc', checkValue: isCursorTimestamp }) : undefined;
  const rows = await listContactEmails(deps.db, projectId, contactId, { before, limit: limit + 1 });
  return pageOf(secret, rows, {
    limit,
    at: { sort, dir: 'desc' },
    map: toEmail,
    total: input.cursor ? undefined : () => countContactEmails(deps.db, projectId, contactId),
  });
}
