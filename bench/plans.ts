import { randomUUID } from 'node:crypto';
import pg from 'pg';
// @ts-expect-error pg's value conversion (the same its client applies to parameters) has no types of its own
import { prepareValue } from 'pg/lib/utils.js';
import { upsertContactByEmail, upsertContactsByEmail } from '../src/contacts/contacts.queries.ts';
import type { Db, Queryable } from '../src/db/index.ts';
import { insertEmails } from '../src/emails/email-record.queries.ts';
import { insertEvents } from '../src/events/events.queries.ts';
import { countMembers } from '../src/segments/segments.queries.ts';
import { countedMembersOf } from '../src/segments/segments.service.ts';
import { SEGMENT_CONDITION } from './scenarios/segment-count.ts';

/**
 * `router`: one task on the project's node, nothing through the coordinator first. `multi-step`:
 * Citus plans parts first (a CTE as a distributed subplan, INSERT … SELECT rows pulled to the
 * coordinator) and sends their results on: each step still on the project's node only, but a round
 * trip each. Null on PostgreSQL.
 */
export type Execution = 'router' | 'multi-step' | 'multi-shard';
export type Plan = { statement: string; sql: string; plan: string; execution: Execution | null };

function execution(plan: string): Execution {
  const tasks = [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1]));
  if (tasks.some((n) => n > 1)) return 'multi-shard';
  if (/Distributed Subplan|pull to coordinator|repartition/.test(plan)) return 'multi-step';
  return 'router';
}

/**
 * A Queryable that plans instead of running: each statement the product's query function sends is
 * EXPLAINed with the same text and parameters, and the function gets one empty row back. A
 * function's second and later statements are numbered.
 */
function explaining(db: Queryable, name: string, plans: Plan[], citus: boolean): Queryable {
  let sent = 0;
  return {
    query: async (sql, params) => {
      sent += 1;
      const statement = sent === 1 ? name : `${name} (${sent})`;
      // The values written into the text: Citus plans a statement with parameters only once they
      // are bound, which a plain EXPLAIN never does.
      const text = sql.replace(/\$(\d+)/g, (_, n: string) => literal(params?.[Number(n) - 1]));
      const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      plans.push({ statement, sql: sql.trim(), plan, execution: citus ? execution(plan) : null });
      return [{}] as never[];
    },
    exec: async () => {},
  };
}

function literal(value: unknown): string {
  const text = prepareValue(value) as string | null;
  return text === null ? 'NULL' : pg.Client.prototype.escapeLiteral(text);
}

/**
 * The plans of the hot statements, for `projectId`, through the product's own query functions:
 * POST /contacts' upsert; the many-contact upsert of send-accepted (and of track-new on Citus);
 * track-new's event insert; send-accepted's record insert; segment-count's audience count.
 */
export async function hotStatementPlans(db: Db, projectId: string, citus: boolean): Promise<Plan[]> {
  const plans: Plan[] = [];
  const email = `plan-${randomUUID()}@bench.test`;
  await upsertContactByEmail(explaining(db, 'POST /contacts: contact upsert', plans, citus), projectId, {
    email,
    subscribed: null,
    subscribedWhenNew: true,
    data: { set: { plan: 'pro' }, unset: [] },
  } as never);
  await insertEvents(explaining(db, 'track: event insert', plans, citus), projectId, [
    { id: randomUUID(), contactId: randomUUID(), name: 'page-viewed', data: { plan: 'pro' }, emailId: null },
  ]);
  // /v1/send's recipients as its group commit upserts them, and /v1/track's contacts on Citus
  // (one project per statement there).
  const recipients = [{ projectId, email, set: { plan: 'pro' } }];
  await upsertContactsByEmail(
    explaining(db, 'send, and track on Citus: contacts upsert', plans, citus),
    recipients,
    { subscribed: null, subscribedWhenNew: false, unset: [] },
    { oneProject: citus },
  );
  await insertEmails(explaining(db, 'send: record insert', plans, citus), projectId, [
    {
      id: randomUUID(),
      contact_id: randomUUID(),
      to_address: email,
      to_name: null,
      from_address: 'bench@bench.test',
      from_name: null,
      reply_to: null,
      subject: 'Hello',
      html: '<p>Hello</p>',
      text_body: 'Hello',
      headers: {},
      status: 'QUEUED',
      source_type: 'API',
      campaign_id: null,
      template_id: null,
      workflow_id: null,
      content_type: 'TRANSACTIONAL',
      message_id: `<${randomUUID()}@bench.test>`,
      last_error: null,
    } as never,
  ]);
  await db.transaction(async (tx) => {
    const members = await countedMembersOf(tx, projectId, { id: randomUUID(), type: 'DYNAMIC', condition: SEGMENT_CONDITION as never });
    await countMembers(explaining(tx, 'segment-count: audience count', plans, citus), members);
  });
  return plans;
}
