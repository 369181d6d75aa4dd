import type { Queryable } from '../db/index.ts';

// The warm-up day (docs/streams.md, "Warm-up"): the UTC date of the database's clock, moved by the
// test clock's offset (seconds; 0 outside tests). `$n` is the offset's parameter.
const today = (n: number) => `((now() AT TIME ZONE 'UTC') + make_interval(secs => $${n}::float8))::date`;
// The cap of a day of the schedule $4 started on $5: the first day's before the start, none (NULL)
// after the last day. Immutable, so it may appear in DO UPDATE SET on Citus (docs/citus.md).
const cap = (day: string) => `CASE WHEN ${day} - $5::date + 1 > cardinality($4::int[]) THEN NULL ELSE ($4::int[])[greatest(1, ${day} - $5::date + 1)] END`;
// What a take of $3 gets when `used` are gone already.
const grant = (day: string, used: string) => `CASE WHEN ${cap(day)} IS NULL THEN $3::int ELSE least($3::int, greatest(0, ${cap(day)} - ${used})) END`;

/** Days since 1970-01-01 (UTC): how the warm-up day travels between SQL and JS. */
export type EpochDay = number;

/**
 * Takes up to `want` of the domain's cap for today: one statement, serialised on the domain's row
 * of the day, so workers together never exceed the cap. Returns what it got and the day it counted.
 */
export async function takeWarmup(
  db: Queryable,
  key: { projectId: string; domainId: string },
  want: number,
  schedule: readonly number[],
  startedOn: string,
  offsetSeconds: number,
): Promise<{ granted: number; day: EpochDay }> {
  const rows = await db.query<{ granted: number; day: number }>(
    `INSERT INTO warmup_counts AS c (project_id, domain_id, day, sent, granted)
     VALUES ($1, $2, ${today(6)}, ${grant(today(6), '0')}, ${grant(today(6), '0')})
     ON CONFLICT (project_id, domain_id, day) DO UPDATE SET
       sent = c.sent + ${grant('EXCLUDED.day', 'c.sent')},
       granted = ${grant('EXCLUDED.day', 'c.sent')}
     RETURNING c.granted, (c.day - DATE '1970-01-01') AS day`,
    [key.projectId, key.domainId, want, schedule, startedOn, offsetSeconds],
  );
  return { granted: Number(rows[0]!.granted), day: Number(rows[0]!.day) };
}

/** Gives back `count` of a day's take whose records did not leave after all (a rate deferred them). */
export async function giveBackWarmup(db: Queryable, key: { projectId: string; domainId: string }, day: EpochDay, count: number): Promise<void> {
  await db.query(`UPDATE warmup_counts SET sent = greatest(0, sent - $4::int) WHERE project_id = $1 AND domain_id = $2 AND day = DATE '1970-01-01' + $3::int`, [
    key.projectId,
    key.domainId,
    day,
    count,
  ]);
}

/** The warm-up day now, and what each of the project's domains has sent of it. */
export async function warmupToday(db: Queryable, projectId: string, offsetSeconds: number): Promise<{ day: EpochDay; sent: Map<string, number> }> {
  const [days, rows] = await Promise.all([
    db.query<{ day: number }>(`SELECT (${today(1)} - DATE '1970-01-01') AS day`, [offsetSeconds]),
    db.query<{ domain_id: string; sent: number }>(`SELECT domain_id, sent FROM warmup_counts WHERE project_id = $1 AND day = ${today(2)}`, [projectId, offsetSeconds]),
  ]);
  return { day: Number(days[0]!.day), sent: new Map(rows.map((row) => [row.domain_id, Number(row.sent)])) };
}
