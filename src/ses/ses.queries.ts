import type { Queryable } from '../db/index.ts';

/** Processed SNS MessageIds are kept this long; SNS redelivers within hours, not weeks. */
const PROCESSED_RETENTION = '30 days';

/** Records an SNS MessageId; false when it was already there (a redelivery). */
export async function markProcessed(tx: Queryable, snsMessageId: string): Promise<boolean> {
  await tx.query(`DELETE FROM sns_messages WHERE received_at < now() - $1::interval`, [PROCESSED_RETENTION]);
  const rows = await tx.query(`INSERT INTO sns_messages (message_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING message_id`, [snsMessageId]);
  return rows.length === 1;
}
