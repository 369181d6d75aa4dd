import type { Queryable } from '../db/index.ts';
import { type ClaimQueue, claimDue as claimDueOf, dueProjects as dueProjectsOf, releaseClaimsOf as releaseClaimsOfQueue } from '../jobs/claims.ts';

/**
 * The messages webhook delivery claims (src/jobs/claims.ts): pending, due or past their lease. A
 * released message is due again in its place in the queue (its creation time: it was claimed
 * before whatever is due after it), its holder cleared.
 */
export const MESSAGE_QUEUE: ClaimQueue = {
  table: 'webhook_messages',
  due: 'next_attempt_at',
  pending: "status = 'pending'",
  claimed: "status = 'pending'",
  releaseTo: 'least(created_at, now())',
  releaseSet: 'claimed_by = NULL',
};

/** An endpoint's `events` entry matches a name exactly, as a `prefix.*` family, or as `*`. */
const MATCHES = (name: string, filters: string) =>
  `(${name} = ANY(${filters}) OR EXISTS (SELECT 1 FROM unnest(${filters}) f WHERE right(f, 1) = '*' AND starts_with(${name}, left(f, -1))))`;

/**
 * Fans recorded events out to the project's endpoints whose filters match: one message per event
 * and endpoint, its body fixed now (docs/decisions/webhook-endpoints.md). Idempotent (the unique event and endpoint key),
 * since the dispatch that calls it is at least once. A project without endpoints reads no event.
 */
export async function fanOut(db: Queryable, projectId: string, eventIds: string[]): Promise<number> {
  const rows = await db.query<{ queued: number }>(
    `WITH listening AS (
       SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE project_id = $1) AS yes
     ), ev AS (
       SELECT e.id, e.name, e.data, e.email_id, e.contact_id, e.created_at, c.email
       FROM events e JOIN contacts c ON c.project_id = e.project_id AND c.id = e.contact_id
       WHERE e.project_id = $1 AND e.id = ANY($2::uuid[]) AND (SELECT yes FROM listening)
     ), queued AS (
       INSERT INTO webhook_messages (project_id, endpoint_id, event_id, type, payload, next_attempt_at)
       SELECT $1, w.id, ev.id, ev.name,
         jsonb_build_object(
           'type', ev.name,
           'timestamp', to_char(ev.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'data', jsonb_strip_nulls(jsonb_build_object(
               'id', ev.id, 'contact', jsonb_build_object('id', ev.contact_id, 'email', ev.email),
               'emailId', ev.email_id, 'campaignId', m.campaign_id, 'workflowId', m.workflow_id, 'templateId', m.template_id))
             || jsonb_build_object('data', ev.data)),
         CASE WHEN w.enabled THEN now() END
       FROM ev
       JOIN webhook_endpoints w ON w.project_id = $1 AND ${MATCHES('ev.name', 'w.events')}
       LEFT JOIN emails m ON m.project_id = $1 AND m.id = ev.email_id
       ORDER BY ev.created_at, ev.id
       ON CONFLICT (project_id, endpoint_id, event_id) DO NOTHING
       RETURNING 1
     )
     SELECT count(*)::int AS queued FROM queued`,
    [projectId, eventIds],
  );
  return rows[0]!.queued;
}

export type ClaimedMessage = {
  project_id: string;
  id: string;
  endpoint_id: string;
  payload: Record<string, unknown>;
  attempts: number;
  retries: number;
  url: string;
  secret: string;
  previous_secret: string | null;
};

/**
 * Claims due messages, oldest first, at most `perEndpoint` minus what this process already has in
 * flight for each endpoint (`busy`: endpoint id → count), `limit` in all. One range of the due index
 * is read (`scan` rows at most), skipping endpoints this process already holds at their cap, so a
 * slow endpoint's backlog is stepped over, not waited on. The claim moves next_attempt_at to the
 * lease's end, numbers the attempt and names the claiming worker `instance`, so the message of a
 * worker that dies is due again with the same id, at once when its death is noticed
 * (releaseClaimsOf), at the latest when the lease ends. SKIP LOCKED lets several workers claim
 * side by side. Across projects, or in the one project `projectId` names (on Citus, which locks
 * rows only in a statement for one project: see dueProjects). The previous secret is judged by the
 * `clock` CTE's time (Citus refuses now() in a RETURNING).
 */
export function claimDue(
  db: Queryable,
  options: { perEndpoint: number; limit: number; busy: Record<string, number>; leaseSeconds: number; instance: number; projectId?: string },
): Promise<ClaimedMessage[]> {
  return claimDueOf<ClaimedMessage>(db, MESSAGE_QUEUE, {
    limit: options.limit,
    leaseSeconds: options.leaseSeconds,
    claimedBy: options.instance,
    projectId: options.projectId,
    due: ({ bind, inProject, limit }) => `clock AS MATERIALIZED (
       SELECT now() AS now
     ), cand AS (
       SELECT m.project_id, m.id, m.endpoint_id, m.next_attempt_at FROM webhook_messages m
       WHERE m.status = 'pending' AND m.next_attempt_at <= now() AND NOT (m.endpoint_id = ANY(${bind(fullEndpoints(options))}::uuid[])) ${inProject('m')}
       ORDER BY m.next_attempt_at
       LIMIT ${bind(scanOf(options))}
       FOR UPDATE SKIP LOCKED
     ), ranked AS (
       SELECT c.*, row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.id) AS rn FROM cand c
     ), due AS (
       SELECT r.project_id, r.id FROM ranked r
       JOIN webhook_endpoints w ON w.project_id = r.project_id AND w.id = r.endpoint_id AND w.enabled
       WHERE r.rn <= ${bind(options.perEndpoint)} - coalesce((${bind(JSON.stringify(options.busy))}::jsonb ->> r.endpoint_id::text)::int, 0)
       ORDER BY r.next_attempt_at
       LIMIT ${limit}
     )`,
    set: () => 'attempts = x.attempts + 1',
    from: { items: 'webhook_endpoints w, clock', where: (inProject) => `AND w.project_id = x.project_id AND w.id = x.endpoint_id ${inProject('w')}` },
    returning: `x.project_id, x.id, x.endpoint_id, x.payload, x.attempts, x.retries, w.url, w.secret,
       CASE WHEN w.previous_secret_until > clock.now THEN w.previous_secret END AS previous_secret`,
  });
}

/** The endpoints this process already holds at their cap: the claim steps over their messages. */
const fullEndpoints = (options: { perEndpoint: number; busy: Record<string, number> }) =>
  Object.entries(options.busy)
    .filter(([, n]) => n >= options.perEndpoint)
    .map(([id]) => id);
/** Due messages a claim reads at most. */
const scanOf = (options: { perEndpoint: number; limit: number }) => options.limit * 2 + options.perEndpoint;

/**
 * The projects among the due messages a claim with these options would read, the project of the
 * oldest first (src/jobs/project-rotation.queries.ts).
 */
export const dueProjects = (db: Queryable, options: { perEndpoint: number; limit: number; busy: Record<string, number> }) =>
  dueProjectsOf(db, MESSAGE_QUEUE, scanOf(options), { where: 'NOT (endpoint_id = ANY($2::uuid[]))', params: [fullEndpoints(options)] });

/**
 * The claims of dead worker instances are due again now, each in its place in the queue (its
 * creation time: it was claimed before whatever is due after it).
 */
export const releaseClaimsOf = (db: Queryable, instances: number[]) => releaseClaimsOfQueue(db, MESSAGE_QUEUE, instances);

/** The earliest time a pending message falls due (a retry, a lease's end); disabled endpoints' have none. */
export async function nextDueAt(db: Queryable): Promise<Date | undefined> {
  const rows = await db.query<{ at: Date | null }>("SELECT min(next_attempt_at) AS at FROM webhook_messages WHERE status = 'pending'");
  return rows[0]?.at ? new Date(rows[0].at) : undefined;
}

/** A disabled endpoint's pending messages wait without a due time (outside the claim's range). */
export async function parkMessages(db: Queryable, endpoints: Array<{ project_id: string; id: string }>): Promise<void> {
  await db.query(
    `UPDATE webhook_messages m SET next_attempt_at = NULL
     FROM jsonb_to_recordset($1::jsonb) AS e(project_id uuid, id uuid)
     WHERE m.project_id = e.project_id AND m.endpoint_id = e.id AND m.status = 'pending' AND m.next_attempt_at IS NOT NULL`,
    [JSON.stringify(endpoints.map(({ project_id, id }) => ({ project_id, id })))],
  );
}

/**
 * What one attempt ended with: `succeeded`, `retry` (pending until next_at) or `failed` (the
 * schedule is spent); `gone` (a 410) also disables the endpoint.
 */
export type Outcome = {
  project_id: string;
  id: string;
  attempt: number;
  at: string;
  status_code: number | null;
  duration_ms: number;
  response: string;
  outcome: 'succeeded' | 'retry' | 'failed';
  gone: boolean;
  next_at: string | null;
  retries: number;
};

export type DisabledEndpoint = { project_id: string; id: string; url: string; disabled_reason: 'gone' | 'failing' };

/**
 * Records attempts and their messages' new state, for many messages in one statement (group
 * commit). A message whose claim was taken over after its lease ended (attempt numbers differ)
 * keeps the newer claim's state; its attempt is still logged. Endpoints: a success ends the failure
 * streak, a failure starts one, a 410 or a streak older than `disableAfterDays` disables the
 * endpoint (returned, so its owners are told). The time comes from the `clock` CTE (Citus refuses
 * now() inside CASE in a write), and a message's existence is read by a join (Citus runs no
 * correlated subquery beside a CTE).
 */
export async function recordOutcomes(db: Queryable, outcomes: Outcome[], disableAfterDays: number): Promise<DisabledEndpoint[]> {
  return db.query<DisabledEndpoint>(
    `WITH clock AS MATERIALIZED (
       SELECT now() AS now
     ), input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(project_id uuid, id uuid, attempt int, at timestamptz, status_code int,
         duration_ms int, response text, outcome text, gone boolean, next_at timestamptz, retries int)
     ), updated AS (
       UPDATE webhook_messages m SET
         status = CASE i.outcome WHEN 'succeeded' THEN 'succeeded' WHEN 'failed' THEN 'failed' ELSE 'pending' END,
         next_attempt_at = CASE WHEN i.outcome = 'retry' THEN i.next_at END,
         retries = i.retries,
         claimed_by = NULL
       FROM input i
       WHERE m.project_id = i.project_id AND m.id = i.id AND m.attempts = i.attempt AND m.status = 'pending'
       RETURNING m.project_id, m.endpoint_id, i.outcome, i.gone, i.at
     ), logged AS (
       INSERT INTO webhook_attempts (project_id, message_id, attempt, at, status_code, duration_ms, response)
       SELECT i.project_id, i.id, i.attempt, i.at, i.status_code, i.duration_ms, i.response
       FROM input i JOIN webhook_messages m ON m.project_id = i.project_id AND m.id = i.id
       ON CONFLICT DO NOTHING
     ), per_endpoint AS (
       SELECT project_id, endpoint_id, bool_or(outcome = 'succeeded') AS ok, bool_or(gone) AS gone, min(at) AS first_failure
       FROM updated GROUP BY project_id, endpoint_id
     ), judged AS (
       -- Read before the update below (a CTE's snapshot): only endpoints enabled until now are reported.
       SELECT s.*, w.failing_since AS since,
         NOT s.ok AND w.enabled AND (s.gone OR w.failing_since <= now() - make_interval(days => $2)) AS disable
       FROM per_endpoint s JOIN webhook_endpoints w ON w.project_id = s.project_id AND w.id = s.endpoint_id
     ), changed AS (
       UPDATE webhook_endpoints w SET
         failing_since = CASE WHEN j.ok THEN NULL ELSE coalesce(j.since, j.first_failure) END,
         enabled = CASE WHEN j.disable THEN false ELSE w.enabled END,
         disabled_reason = CASE WHEN NOT j.disable THEN w.disabled_reason WHEN j.gone THEN 'gone' ELSE 'failing' END,
         updated_at = CASE WHEN j.disable THEN clock.now ELSE w.updated_at END
       FROM judged j, clock
       WHERE w.project_id = j.project_id AND w.id = j.endpoint_id
         AND (j.disable OR (j.ok AND j.since IS NOT NULL) OR (NOT j.ok AND j.since IS NULL))
       RETURNING w.project_id, w.id, w.url, w.disabled_reason, j.disable
     )
     SELECT project_id, id, url, disabled_reason FROM changed WHERE disable`,
    [JSON.stringify(outcomes), disableAfterDays],
  );
}
