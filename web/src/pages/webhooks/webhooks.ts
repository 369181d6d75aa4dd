import type { paths } from '@mailroom/client';
import { api, call } from '../../api/client.ts';
import type { ProjectSummary } from '../../api/session.ts';

export type Endpoint = Awaited<ReturnType<typeof fetchEndpoint>>;
export type EndpointInput = { url: string; events: string[]; description?: string };
export type MessagePage = Awaited<ReturnType<typeof fetchMessages>>;
export type Message = MessagePage['data'][number];
export type MessageStatus = NonNullable<NonNullable<paths['/webhook-endpoints/{id}/messages']['get']['parameters']['query']>['status']>;
export type EndpointChange = NonNullable<paths['/webhook-endpoints/{id}']['patch']['requestBody']>['content']['application/json'];

export const webhookKeys = {
  list: (projectId: string) => ['webhook-endpoints', projectId] as const,
  one: (projectId: string, id: string) => ['webhook-endpoints', projectId, id] as const,
  messages: (projectId: string, id: string, status: string) => ['webhook-endpoints', projectId, id, 'messages', status] as const,
};

export const fetchEndpoint = (id: string) => call(api.GET('/webhook-endpoints/{id}', { params: { path: { id } } }));

export const fetchMessages = (id: string, status: MessageStatus | undefined, cursor: string | undefined) =>
  call(api.GET('/webhook-endpoints/{id}/messages', { params: { path: { id }, query: { status, cursor, limit: 20 } } }));

/** docs/decisions/webhook-endpoints.md: a MEMBER may read endpoints and their log; changes and replays need OWNER or ADMIN. */
export const mayChangeWebhooks = (project: ProjectSummary) => project.role !== 'MEMBER';

export const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
