import type { Deps } from '../deps.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import type { ProjectContext } from '../http/auth.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, isCursorTimestamp, MAX_PAGE_SIZE, type Page, pageOf } from '../pagination.ts';
import * as log from './message-log.queries.ts';
import { newSecret } from './signature.ts';
import { checkEndpointUrl } from './target.ts';
import * as queries from './webhooks.queries.ts';
import type { CreateEndpointInput, Endpoint, Message, MessageStatus, UpdateEndpointInput } from './webhooks.schemas.ts';

type ServiceDeps = Pick<Deps, 'db' | 'config' | 'outbound'>;

/** docs/decisions/webhook-endpoints.md: after a rotation the old secret signs beside the new one this long. */
export const ROTATION_OVERLAP_HOURS = 24;

/** docs/decisions/webhook-endpoints.md: MEMBER may read endpoints and their log, not change them or replay. */
export function requireChange(project: ProjectContext, action: string): void {
  if (project.via === 'session' && project.role === 'MEMBER') throw forbidden(`Only OWNER or ADMIN members can ${action}.`);
}

const iso = (value: Date | string) => new Date(value).toISOString();

function toEndpoint(row: queries.EndpointRow): Endpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Duplicate filters are kept once, in the order given. */
const uniqueFilters = (events: string[]) => [...new Set(events)];

export async function createEndpoint(deps: ServiceDeps, projectId: string, input: CreateEndpointInput) {
  await checkEndpointUrl(deps, input.url);
  const secret = newSecret();
  const row = await queries.insertEndpoint(deps.db, projectId, { url: input.url, events: uniqueFilters(input.events), description: input.description ?? null, secret });
  return { ...toEndpoint(row), secret };
}

export async function listEndpoints(deps: ServiceDeps, projectId: string) {
  return { data: (await queries.listEndpoints(deps.db, projectId)).map(toEndpoint) };
}

export async function getEndpoint(deps: ServiceDeps, projectId: string, id: string) {
  const row = await queries.findEndpoint(deps.db, projectId, id);
  if (!row) throw notFound('Webhook endpoint');
  return toEndpoint(row);
}

/** PATCH; enabling an endpoint lets its waiting messages go on (the caller wakes delivery). */
export async function updateEndpoint(deps: ServiceDeps, projectId: string, id: string, input: UpdateEndpointInput) {
  if (input.url !== undefined) await checkEndpointUrl(deps, input.url);
  const row = await queries.updateEndpoint(deps.db, projectId, id, { ...input, events: input.events && uniqueFilters(input.events) });
  if (!row) throw notFound('Webhook endpoint');
  return toEndpoint(row);
}

export async function deleteEndpoint(deps: ServiceDeps, projectId: string, id: string) {
  if (!(await queries.deleteEndpoint(deps.db, projectId, id))) throw notFound('Webhook endpoint');
}

export async function rotateSecret(deps: ServiceDeps, projectId: string, id: string) {
  const secret = newSecret();
  if (!(await queries.rotateSecret(deps.db, projectId, id, secret, ROTATION_OVERLAP_HOURS))) throw notFound('Webhook endpoint');
  return { secret };
}

function toMessage(row: log.MessageRow): Message {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    attempts: row.attempts.map((a) => ({ at: iso(a.at), statusCode: a.status_code, durationMs: a.duration_ms, response: a.response })),
    nextAttemptAt: row.status === 'pending' && row.next_attempt_at ? iso(row.next_attempt_at) : null,
    createdAt: iso(row.created_at),
  };
}

/** GET …/messages: newest first, cursor-paginated like GET /events; `total` on the first page only. */
export async function listMessages(
  deps: ServiceDeps,
  projectId: string,
  endpointId: string,
  input: { limit?: number; cursor?: string; status?: MessageStatus },
): Promise<Page<Message>> {
  await getEndpoint(deps, projectId, endpointId);
  const secret = deps.config.sessionSecret;
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const sort = `webhook-messages:${input.status ?? 'all'}`;
  const before = input.cursor ? decodeCursor(secret, input.cursor, { sort, dir: 'desc', checkValue: isCursorTimestamp }) : undefined;
  const rows = await log.listMessages(deps.db, projectId, endpointId, { status: input.status, before, limit: limit + 1 });
  return pageOf(secret, rows, {
    limit,
    at: { sort, dir: 'desc' },
    map: toMessage,
    total: input.cursor ? undefined : () => log.countMessages(deps.db, projectId, endpointId, input.status),
  });
}

export async function replayMessage(deps: ServiceDeps, projectId: string, endpointId: string, messageId: string): Promise<void> {
  if (!(await log.replayMessage(deps.db, projectId, endpointId, messageId))) throw notFound('Webhook message');
}

export async function replayWindow(deps: ServiceDeps, projectId: string, endpointId: string, window: { since: string; until?: string }) {
  if (window.until && Date.parse(window.until) <= Date.parse(window.since)) throw badRequest('`since` must be before `until`.');
  await getEndpoint(deps, projectId, endpointId);
  return { count: await log.replayWindow(deps.db, projectId, endpointId, window.since, window.until ?? null) };
}
