import type { Queryable } from '../db/index.ts';
import type { WarmupClock } from '../deps.ts';
import { type DomainRow, findVerifiedDomains } from './domains.queries.ts';
import { senderDomains } from './senders.ts';
import { type EpochDay, giveBackWarmup, takeWarmup } from './warmup.queries.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The ceiling of the default schedule: a day's cap never exceeds it, and the warm-up ends there. */
export const DEFAULT_WARMUP_CEILING = 100_000;
/**
 * The schedule offered to every domain (docs/streams.md, "Warm-up"): 200 marketing messages on the
 * first day, doubling daily up to the ceiling (10 days: 200, 400, … 51,200, 100,000), then no cap.
 */
export const DEFAULT_WARMUP_SCHEDULE: readonly number[] = Object.freeze(Array.from({ length: 10 }, (_, day) => Math.min(DEFAULT_WARMUP_CEILING, 200 * 2 ** day)));

/** The prefix of a record's last_error while it waits for its domain's next warm-up day. */
export const WARMUP_WAIT = 'Waiting for the warm-up of ';

/** Where a domain stands in its warm-up on `today`: the day of the schedule and its cap (null: no cap, the warm-up is over). */
export function warmupDay(schedule: readonly number[], startedDay: EpochDay, today: EpochDay): { day: number; cap: number | null } {
  const day = today - startedDay + 1;
  return { day, cap: day > schedule.length ? null : schedule[Math.max(1, day) - 1]! };
}

export const epochDayOf = (ms: number): EpochDay => Math.floor(ms / DAY_MS);
export const isoDay = (day: EpochDay) => new Date(day * DAY_MS).toISOString().slice(0, 10);
export const epochDayOfIso = (iso: string): EpochDay => epochDayOf(Date.parse(`${iso}T00:00:00Z`));

/** What the warm-up reads of an email record (docs/streams.md: only marketing mail is capped). */
type Mail = { project_id: string; id: string; from_address: string; stream: 'transactional' | 'marketing' };
type Held<T> = { row: T; ms: number; error: string };
type Taken = { key: { projectId: string; domainId: string }; day: EpochDay; ids: Set<string> };

/**
 * Warm-up caps on marketing mail (docs/streams.md): the records of a claimed chunk whose signing
 * domain is warming up leave while the domain's cap for the day lasts; the others wait, without
 * counting as an attempt, until the next warm-up day starts. The count is in the database
 * (warmup_counts), shared by every worker. Transactional mail is never capped.
 */
export class Warmup {
  constructor(
    private readonly db: Queryable,
    private readonly clock: WarmupClock,
  ) {}

  async take<T extends Mail>(chunk: T[]): Promise<{ going: T[]; later: Held<T>[]; taken: Taken[] }> {
    const marketing = chunk.filter((row) => row.stream === 'marketing');
    if (marketing.length === 0) return { going: chunk, later: [], taken: [] };
    const domains = await findVerifiedDomains(this.db, [...new Set(marketing.map((row) => row.project_id))]);
    const groups = new Map<string, { domain: DomainRow; rows: T[] }>();
    for (const row of marketing) {
      const domain = signingDomain(domains, row);
      if (!domain?.warmup_enabled || domain.warmup_started_day === null) continue;
      const schedule = domain.warmup_schedule ?? DEFAULT_WARMUP_SCHEDULE;
      // Past the schedule (with a day's margin for the clocks' skew) the domain is warmed up: no statement.
      if (epochDayOf(Date.now() + this.clock.offsetSeconds * 1000) - domain.warmup_started_day > schedule.length) continue;
      const group = groups.get(domain.id) ?? { domain, rows: [] };
      group.rows.push(row);
      groups.set(domain.id, group);
    }
    const later: Held<T>[] = [];
    const taken: Taken[] = [];
    for (const { domain, rows } of groups.values()) {
      const key = { projectId: domain.project_id, domainId: domain.id };
      const schedule = domain.warmup_schedule ?? DEFAULT_WARMUP_SCHEDULE;
      const { granted, day } = await takeWarmup(this.db, key, rows.length, schedule, isoDay(domain.warmup_started_day!), this.clock.offsetSeconds);
      if (granted > 0) taken.push({ key, day, ids: new Set(rows.slice(0, granted).map((row) => row.id)) });
      if (granted === rows.length) continue;
      // The next warm-up day starts at the next UTC midnight of the warm-up clock.
      const until = (day + 1) * DAY_MS - this.clock.offsetSeconds * 1000;
      const { day: number, cap } = warmupDay(schedule, domain.warmup_started_day!, day);
      const error = `${WARMUP_WAIT}${domain.domain}: day ${number} of its schedule allows ${cap} marketing messages, all sent; waits until ${new Date(until).toISOString()}`;
      for (const row of rows.slice(granted)) later.push({ row, ms: Math.max(0, until - Date.now()), error });
    }
    const held = new Set(later.map(({ row }) => row.id));
    return { going: chunk.filter((row) => !held.has(row.id)), later, taken };
  }

  /** Returns the cap taken for records that a rate then held back: they count when they leave. */
  async giveBack(taken: Taken[], heldBack: Set<string>): Promise<void> {
    for (const { key, day, ids } of taken) {
      const count = [...ids].filter((id) => heldBack.has(id)).length;
      if (count > 0) await giveBackWarmup(this.db, key, day, count);
    }
  }
}

/** The domain that signs a record: the most specific verified domain of its project covering the sender. */
function signingDomain(domains: DomainRow[], row: Mail): DomainRow | undefined {
  for (const name of senderDomains(row.from_address)) {
    const domain = domains.find((d) => d.project_id === row.project_id && d.domain === name);
    if (domain) return domain;
  }
  return undefined;
}
