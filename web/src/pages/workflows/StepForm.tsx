import { Button, Group, NumberInput, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { FilterRow } from '../../ui/conditions/ConditionBuilder.tsx';
import type { FieldOption } from '../../ui/conditions/fields.ts';
import { type FieldKind, type Filter, newFilter } from '../../ui/conditions/tree.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { STEP_LABELS, type StepType } from './workflows.ts';

type Values = Record<string, string>;

/** The operators a CONDITION step takes (the server's list; the builder's time, event and segment operators are not among them). */
const CONDITION_OPERATORS = ['equals', 'notEquals', 'contains', 'notContains', 'greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual', 'exists', 'notExists'];
const FIELD_KINDS: Record<string, FieldKind> = { string: 'string', number: 'number', boolean: 'boolean', date: 'date' };

/**
 * The fields a CONDITION can test, for the shared filter row (docs/workflow-canvas.md): the
 * contact's email and subscription, its data keys, and the trigger event's data keys, as
 * GET /workflows/fields lists them. A field the lists do not know (a `context.<key>` set through
 * the API) is kept as it is.
 */
function useConditionOptions(enabled: boolean, eventName: string | undefined, current: string): FieldOption[] {
  const fields = useQuery({
    queryKey: ['workflow-condition-fields', eventName ?? ''],
    queryFn: () => call(api.GET('/workflows/fields', { params: { query: eventName ? { eventName } : {} } })),
    enabled,
    staleTime: 60_000,
  });
  const options: FieldOption[] = (fields.data?.fields ?? []).map((f) => ({
    value: f.field,
    label: f.field === 'email' ? 'Email address' : f.field === 'subscribed' ? 'Subscribed' : f.field.replace(/^(data|event)\./, ''),
    kind: FIELD_KINDS[f.type] ?? 'string',
    group: f.source === 'event' ? `Trigger event${eventName ? ` ${eventName}` : ''}` : f.source === 'data' ? 'Contact data' : 'Contact',
  }));
  if (current && !options.some((o) => o.value === current)) options.push({ value: current, label: current, kind: current === 'subscribed' ? 'boolean' : 'string', group: 'Other' });
  if (!options.some((o) => o.value === 'email')) options.unshift({ value: 'email', label: 'Email address', kind: 'string', group: 'Contact' });
  return options;
}

/** The filter row's value of a CONDITION config, and back: CONDITION stores one filter, not a tree. */
const toFilter = (config: Record<string, any>): Filter =>
  config.field ? { field: config.field, operator: config.operator ?? 'equals', ...(config.value === undefined ? {} : { value: config.value }) } : newFilter();

/** The form's text values from a step's config. */
function toValues(type: StepType, config: Record<string, any>): Values {
  switch (type) {
    case 'SEND_EMAIL':
      return { templateId: config.templateId ?? '', to: config.to ?? '' };
    case 'DELAY':
      return { amount: String(config.amount ?? 1), unit: config.unit ?? 'hours' };
    case 'WAIT_FOR_EVENT':
      return { eventName: config.eventName ?? '', timeoutSeconds: config.timeoutSeconds === undefined ? '' : String(config.timeoutSeconds) };
    case 'CONDITION':
      return { filter: JSON.stringify(toFilter(config)) };
    case 'WEBHOOK':
      return {
        url: config.url ?? '',
        method: config.method ?? 'POST',
        headers: config.headers ? JSON.stringify(config.headers, null, 2) : '',
        body: config.body === undefined ? '' : typeof config.body === 'string' ? config.body : JSON.stringify(config.body, null, 2),
      };
    case 'UPDATE_CONTACT':
      return { data: config.data ? JSON.stringify(config.data, null, 2) : '', subscribed: config.subscribed === undefined ? 'unchanged' : String(config.subscribed) };
    case 'EXIT':
      return { reason: config.reason ?? '' };
    default:
      return {};
  }
}

function json(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON.`);
  }
}

/** The config the API takes, from the form's values (the server checks it and names what is wrong). */
function toConfig(type: StepType, v: Values): Record<string, unknown> {
  switch (type) {
    case 'SEND_EMAIL':
      return { templateId: v.templateId, ...(v.to ? { to: v.to } : {}) };
    case 'DELAY':
      return { amount: Number(v.amount), unit: v.unit };
    case 'WAIT_FOR_EVENT':
      return { eventName: v.eventName, ...(v.timeoutSeconds ? { timeoutSeconds: Number(v.timeoutSeconds) } : {}) };
    case 'CONDITION': {
      const filter = JSON.parse(v.filter ?? 'null') as Filter | null;
      if (!filter) return {};
      return { field: filter.field, operator: filter.operator, ...(filter.value === undefined ? {} : { value: filter.value }) };
    }
    case 'WEBHOOK': {
      const body = v.body?.trim() ? (v.body.trim().startsWith('{') ? json(v.body, 'Body') : v.body) : undefined;
      return { url: v.url, method: v.method, ...(v.headers?.trim() ? { headers: json(v.headers, 'Headers') } : {}), ...(body === undefined ? {} : { body }) };
    }
    case 'UPDATE_CONTACT':
      return { ...(v.data?.trim() ? { data: json(v.data, 'Data') } : {}), ...(v.subscribed === 'unchanged' ? {} : { subscribed: v.subscribed === 'true' }) };
    case 'EXIT':
      return v.reason ? { reason: v.reason } : {};
    default:
      return {};
  }
}

/**
 * The config form of one step type. Edits not yet saved are kept in localStorage under `draftKey`
 * until saved, so a reload does not lose them.
 */
export function StepForm({
  type,
  config,
  draftKey,
  submitLabel,
  pending,
  error,
  readOnly,
  eventName,
  onSubmit,
  onCancel,
}: {
  type: StepType;
  config: Record<string, unknown>;
  draftKey: string;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  readOnly?: boolean;
  /** The trigger event, whose data keys a CONDITION can test. */
  eventName?: string;
  onSubmit: (config: Record<string, unknown>) => void;
  onCancel?: () => void;
}) {
  const [values, setValues] = useState<Values>(() => {
    const saved = localStorage.getItem(draftKey);
    return saved ? { ...toValues(type, config), ...JSON.parse(saved) } : toValues(type, config);
  });
  const [local, setLocal] = useState<string>();
  // Said once on the page when a reload brought back edits that differ from what the server holds.
  const [restored, setRestored] = useState(() => {
    const saved = localStorage.getItem(draftKey);
    return !readOnly && !!saved && JSON.stringify({ ...toValues(type, config), ...JSON.parse(saved) }) !== JSON.stringify(toValues(type, config));
  });
  const templates = useQuery({
    queryKey: ['templates-for-steps'],
    queryFn: async () => (await call(api.GET('/templates'))).data,
    enabled: type === 'SEND_EMAIL',
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: the config is compared by its JSON, not by identity (a refetch makes a new object)
  useEffect(() => {
    const saved = localStorage.getItem(draftKey);
    setValues(saved ? { ...toValues(type, config), ...JSON.parse(saved) } : toValues(type, config));
  }, [draftKey, type, JSON.stringify(config)]);
  const set = (name: string) => (value: string | number | null) => {
    const next = { ...values, [name]: value === null ? '' : String(value) };
    setValues(next);
    localStorage.setItem(draftKey, JSON.stringify(next));
  };
  const text = (name: string) => ({ value: values[name] ?? '', onChange: (e: { currentTarget: { value: string } }) => set(name)(e.currentTarget.value), readOnly });
  const fieldError = (name: string) => asApiError(error)?.field(`config.${name}`);
  const submit = () => {
    try {
      setLocal(undefined);
      setRestored(false);
      onSubmit(toConfig(type, values));
    } catch (e) {
      setLocal((e as Error).message);
    }
  };
  const filter: Filter = type === 'CONDITION' ? (JSON.parse(values.filter ?? 'null') ?? newFilter()) : newFilter();
  const conditionOptions = useConditionOptions(type === 'CONDITION', eventName, filter.field);
  const conditionError = ['field', 'operator', 'value'].map(fieldError).find(Boolean);
  const template = templates.data?.find((t) => t.id === values.templateId);
  // The chosen template rendered by the server as sending would (POST /templates/{id}/preview), shown in a sandboxed frame.
  const preview = useQuery({
    queryKey: ['template-preview-for-step', values.templateId],
    queryFn: async () => call(api.POST('/templates/{id}/preview', { params: { path: { id: values.templateId! } }, body: {} })),
    enabled: type === 'SEND_EMAIL' && !!template,
    staleTime: 30_000,
  });

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      aria-label={`${STEP_LABELS[type]} settings`}
    >
      <Stack gap="sm">
        {restored && (
          <Text size="sm" c="blue.9" role="status">
            Unsaved changes restored. Save the step to keep them.
          </Text>
        )}
        {type === 'SEND_EMAIL' && (
          <>
            <Select
              label="Template"
              required
              data={(templates.data ?? []).map((t) => ({ value: t.id, label: t.name }))}
              value={values.templateId || null}
              onChange={set('templateId')}
              error={fieldError('templateId')}
              readOnly={readOnly}
              searchable
            />
            {template && (
              <Text size="sm" c="dimmed">
                Subject: {template.subject} · from {template.from}
              </Text>
            )}
            {template && preview.data && (
              <Stack gap={4}>
                <Text size="sm">Preview (without a contact): {preview.data.subject}</Text>
                <iframe
                  title={`Preview of the template ${template.name}`}
                  sandbox=""
                  srcDoc={preview.data.html}
                  style={{ width: '100%', height: 220, border: '1px solid var(--mantine-color-gray-4)', borderRadius: 4, background: 'white' }}
                />
              </Stack>
            )}
            <TextInput label="Send to" description="Leave empty to send to the contact." {...text('to')} error={fieldError('to')} />
          </>
        )}
        {type === 'DELAY' && (
          <Group grow>
            <NumberInput label="Wait" min={1} required value={values.amount} onChange={set('amount')} error={fieldError('amount')} readOnly={readOnly} />
            <Select label="Unit" data={['seconds', 'minutes', 'hours', 'days']} value={values.unit} onChange={set('unit')} allowDeselect={false} readOnly={readOnly} />
          </Group>
        )}
        {type === 'WAIT_FOR_EVENT' && (
          <>
            <TextInput label="Event name" required {...text('eventName')} error={fieldError('eventName')} />
            <NumberInput
              label="Timeout (seconds)"
              description="Optional. With a timeout the step has an 'event' and a 'timeout' way out."
              min={1}
              value={values.timeoutSeconds}
              onChange={set('timeoutSeconds')}
              error={fieldError('timeoutSeconds')}
              readOnly={readOnly}
            />
          </>
        )}
        {type === 'CONDITION' && (
          <fieldset disabled={readOnly} style={{ border: 0, margin: 0, padding: 0, minWidth: 0 }}>
            <Text size="sm" component="legend" mb={4}>
              Contacts matching this filter take the yes way; the others take no.
            </Text>
            <FilterRow
              filter={filter}
              onChange={(next) => set('filter')(JSON.stringify(next))}
              options={conditionOptions}
              allowedOperators={CONDITION_OPERATORS}
              error={typeof conditionError === 'string' ? conditionError : undefined}
              name="the condition"
            />
          </fieldset>
        )}
        {type === 'WEBHOOK' && (
          <>
            <TextInput label="URL" required {...text('url')} error={fieldError('url')} />
            <Select label="Method" data={['POST', 'PUT', 'PATCH', 'GET']} value={values.method} onChange={set('method')} allowDeselect={false} readOnly={readOnly} />
            <Textarea label="Headers (JSON)" autosize minRows={2} {...text('headers')} error={fieldError('headers')} />
            <Textarea
              label="Body"
              description="Empty sends { contact, workflow, execution, event }. Text or JSON; placeholders such as {{ email }}, {{ data.plan }}, {{ event.orderId }} are filled in."
              autosize
              minRows={3}
              {...text('body')}
              error={fieldError('body')}
            />
          </>
        )}
        {type === 'UPDATE_CONTACT' && (
          <>
            <Textarea label="Data (JSON)" description='For example {"plan": "pro"}; null removes a key.' autosize minRows={2} {...text('data')} error={fieldError('data')} />
            <Select
              label="Subscription"
              data={[
                { value: 'unchanged', label: 'Leave as is' },
                { value: 'true', label: 'Subscribe' },
                { value: 'false', label: 'Unsubscribe' },
              ]}
              value={values.subscribed}
              onChange={set('subscribed')}
              allowDeselect={false}
              readOnly={readOnly}
            />
          </>
        )}
        {type === 'EXIT' && <TextInput label="Reason" {...text('reason')} error={fieldError('reason')} />}
        {local && (
          <Text c="red.9" size="sm" role="alert">
            {local}
          </Text>
        )}
        <ErrorMessage error={error} shownFields={['config']} />
        {!readOnly && (
          <Group justify="flex-end">
            {onCancel && (
              <Button variant="default" onClick={onCancel}>
                Cancel
              </Button>
            )}
            <Button type="submit" loading={pending}>
              {submitLabel}
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

export const clearDraft = (draftKey: string) => localStorage.removeItem(draftKey);
