import type { Deps } from '../deps.ts';
import { notFound } from '../errors.ts';
import { findEmail } from './emails.queries.ts';
import { type Email, toEmail } from './emails.schemas.ts';

/** contract §6: GET /emails/{id}; another project's record is a 404. */
export async function getEmail(deps: Deps, projectId: string, id: string): Promise<Email> {
  const row = await findEmail(deps.db, projectId, id);
  if (!row) throw notFound('Email');
  return toEmail(row);
}
