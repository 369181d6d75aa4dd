import type { paths } from '@mailroom/client';
import { api, call } from '../../api/client.ts';

export type Workflow = Awaited<ReturnType<typeof fetchWorkflow>>;
export type Step = Workflow['steps'][number];
export type Transition = Workflow['transitions'][number];
export type StepType = Step['type'];
export type AddableType = Exclude<StepType, 'TRIGGER'>;
export type Execution = Awaited<ReturnType<typeof fetchExecutions>>['data'][number];
export type ExecutionDetail = Awaited<ReturnType<typeof fetchExecution>>;
export type ExecutionStatus = NonNullable<NonNullable<paths['/workflows/{id}/executions']['get']['parameters']['query']>['status']>;
export type Version = Awaited<ReturnType<typeof fetchVersions>>['data'][number];
export type Simulation = Awaited<ReturnType<typeof simulate>>;
export type NewStep = NonNullable<paths['/workflows/{id}/steps']['post']['requestBody']>['content']['application/json'];
export type Graph = { steps: Step[]; transitions: Transition[] };

export const STEP_TYPES = ['SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT'] as const;
export const STEP_LABELS: Record<StepType, string> = {
  TRIGGER: 'Trigger',
  SEND_EMAIL: 'Send email',
  DELAY: 'Delay',
  WAIT_FOR_EVENT: 'Wait for event',
  CONDITION: 'Condition',
  WEBHOOK: 'Webhook',
  UPDATE_CONTACT: 'Update contact',
  EXIT: 'Exit',
};

export const workflowKeys = {
  list: (projectId: string) => ['workflows', projectId] as const,
  one: (projectId: string, id: string) => ['workflows', projectId, id] as const,
  executions: (projectId: string, id: string) => ['workflows', projectId, id, 'executions'] as const,
  versions: (projectId: string, id: string) => ['workflows', projectId, id, 'versions'] as const,
};

export const fetchWorkflow = (id: string) => call(api.GET('/workflows/{id}', { params: { path: { id } } }));
export const fetchExecutions = (id: string, status?: ExecutionStatus, contactId?: string) =>
  call(api.GET('/workflows/{id}/executions', { params: { path: { id }, query: { status, contactId, limit: 100 } } }));
/** How many executions run or wait at each step now, counted by the server over all of them. */
export const fetchActiveByStep = (id: string) => call(api.GET('/workflows/{id}/executions/active', { params: { path: { id } } }));
export const fetchExecution = (id: string, executionId: string) => call(api.GET('/workflows/{id}/executions/{executionId}', { params: { path: { id, executionId } } }));
export const fetchVersions = (id: string) => call(api.GET('/workflows/{id}/versions', { params: { path: { id } } }));
export const simulate = (id: string, body: { contactId: string; event?: { name: string; data?: Record<string, unknown> } }) =>
  call(api.POST('/workflows/{id}/simulate', { params: { path: { id } }, body }));

/** The contact whose email is `email` (the contacts search), or undefined. */
export async function findContactByEmail(email: string) {
  const page = await call(api.GET('/contacts', { params: { query: { search: email.trim(), limit: 10 } } }));
  return page.data.find((c) => c.email.toLowerCase() === email.trim().toLowerCase());
}

/** The outcomes a step may have edges for, and the branch each edge carries. */
export function outcomes(step: Step): Array<{ branch: string | null; label: string }> {
  if (step.type === 'EXIT') return [];
  if (step.type === 'CONDITION')
    return [
      { branch: 'yes', label: 'yes' },
      { branch: 'no', label: 'no' },
    ];
  if (step.type === 'WAIT_FOR_EVENT' && typeof step.config.timeoutSeconds === 'number')
    return [
      { branch: 'event', label: 'event' },
      { branch: 'timeout', label: 'timeout' },
    ];
  return [{ branch: null, label: 'next' }];
}

/** The branch an existing edge fills ('event' for a WAIT_FOR_EVENT edge without one). */
export const filled = (step: Step, t: Transition) => (step.type === 'WAIT_FOR_EVENT' && t.branch === null ? 'event' : t.branch);

export const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** A short description of a step's config, shown on its node. */
export function summary(step: Step, templates: Map<string, string>): string {
  const c = step.config as Record<string, any>;
  switch (step.type) {
    case 'TRIGGER':
      return '';
    case 'SEND_EMAIL':
      return `Template: ${templates.get(c.templateId) ?? c.templateId}`;
    case 'DELAY':
      return `${c.amount} ${c.unit}`;
    case 'WAIT_FOR_EVENT':
      return `${c.eventName}${typeof c.timeoutSeconds === 'number' ? `, timeout ${c.timeoutSeconds} s` : ''}`;
    case 'CONDITION':
      return `${c.field} ${c.operator}${c.value === undefined ? '' : ` ${JSON.stringify(c.value)}`}`;
    case 'WEBHOOK':
      return `${c.method ?? 'POST'} ${c.url}`;
    case 'UPDATE_CONTACT':
      return [c.data ? `set ${Object.keys(c.data).join(', ')}` : '', c.subscribed === undefined ? '' : c.subscribed ? 'subscribe' : 'unsubscribe'].filter(Boolean).join('; ');
    case 'EXIT':
      return c.reason ?? '';
  }
}
