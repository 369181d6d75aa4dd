import assert from 'node:assert/strict';
import type { Db } from '../../src/db/index.ts';
import type { Client } from './http.ts';

/**
 * Polls until the analytics rollup has counted everything created before `after` (its `upTo`,
 * reported by every analytics answer, has passed it). The rollup runs every few seconds.
 */
export async function waitForRollup(api: Client, after: Date = new Date(), timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get('/analytics/top-events');
    assert.equal(res.status, 200, res.text);
    if (res.body.upTo && Date.parse(res.body.upTo) >= after.getTime()) return;
    if (Date.now() > deadline) assert.fail(`the rollup did not pass ${after.toISOString()} (upTo ${res.body.upTo})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Empties the rollup tables and rewinds the watermark, so the next run recounts every event: how a
 * test (or an operator) brings in events written with past timestamps.
 */
export async function rebuildRollups(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(`SELECT watermark FROM rollup_watermarks WHERE name = 'events' FOR UPDATE`);
    await tx.query('DELETE FROM event_counts');
    await tx.query('DELETE FROM event_totals');
    await tx.query('DELETE FROM email_counts');
    await tx.query('DELETE FROM stream_counts');
    await tx.query(`UPDATE rollup_watermarks SET watermark = '-infinity' WHERE name = 'events'`);
  });
}
