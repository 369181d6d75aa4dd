import { z } from 'zod';
import { splitContactData } from '../contacts/data-rules.ts';
import { AppError, type FieldError } from '../errors.ts';
import { toFieldErrors } from '../http/validation.ts';
import { compile } from '../rendering/engine.ts';

/** The seven step types a user adds (docs/decisions/workflows.md); TRIGGER is made with the workflow. */
export const STEP_TYPES = ['SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT'] as const;
export type UserStepType = (typeof STEP_TYPES)[number];
export type StepType = UserStepType | 'TRIGGER';

export const DELAY_UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 } as const;
/** docs/decisions/workflows.md: a DELAY is at most 365 days; a WAIT_FOR_EVENT timeout has the same ceiling. */
export const MAX_WAIT_SECONDS = 365 * 86_400;

export const VALUE_OPERATORS = ['equals', 'notEquals', 'contains', 'notContains', 'greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'] as const;
export const CONDITION_OPERATORS = [...VALUE_OPERATORS, 'exists', 'notExists'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** Which operators a CONDITION field takes (docs/decisions/segments.md's value operators, docs/decisions/workflows.md's fields). */
export function operatorsFor(field: string): readonly ConditionOperator[] {
  if (field === 'email') return ['equals', 'notEquals', 'contains', 'notContains'];
  if (field === 'subscribed') return ['equals', 'notEquals'];
  return CONDITION_OPERATORS;
}

const CONDITION_FIELD = /^(email|subscribed|(data|event|context)\.[^\s].{0,199})$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,200}$/;
const primitive = z.union([z.string().max(10_000), z.number(), z.boolean()]);

const sendEmail = z.object({ templateId: z.uuid(), to: z.string().trim().toLowerCase().max(254).pipe(z.email()).optional() });

const delay = z
  .object({ amount: z.number().positive(), unit: z.enum(Object.keys(DELAY_UNITS) as [keyof typeof DELAY_UNITS]) })
  .refine((c) => c.amount * DELAY_UNITS[c.unit] <= MAX_WAIT_SECONDS, { path: ['amount'], message: 'A delay is at most 365 days.', params: { code: 'too_big' } });

const waitForEvent = z.object({
  eventName: z.string().trim().min(1).max(255),
  timeoutSeconds: z.number().int().positive().max(MAX_WAIT_SECONDS).optional(),
});

const condition = z
  .object({
    field: z.string().regex(CONDITION_FIELD, 'Use email, subscribed, data.<key>, event.<key> or context.<key>.'),
    operator: z.enum(CONDITION_OPERATORS),
    value: primitive.optional(),
  })
  .superRefine((c, ctx) => {
    const problem = (path: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [path], message, params: { code: path === 'operator' ? 'invalid_enum_value' : 'invalid_type' } });
    if (!operatorsFor(c.field).includes(c.operator)) return problem('operator', `${c.field} takes ${operatorsFor(c.field).join(', ')}.`);
    if (c.operator === 'exists' || c.operator === 'notExists') return;
    if (c.value === undefined) return problem('value', `${c.operator} needs a value.`);
    if (c.field === 'email' && typeof c.value !== 'string') return problem('value', 'email compares with a string.');
    if (c.field === 'subscribed' && typeof c.value !== 'boolean') return problem('value', 'subscribed compares with a boolean.');
    if ((c.operator === 'contains' || c.operator === 'notContains') && typeof c.value !== 'string') return problem('value', `${c.operator} takes a string.`);
    if (/^(greater|less)Than/.test(c.operator) && typeof c.value === 'boolean') return problem('value', `${c.operator} takes a number or a string.`);
  });

const webhook = z.object({
  // A placeholder may give the whole URL; the rendered URL is checked again when the step runs.
  url: z
    .string()
    .trim()
    .min(1)
    .max(2048)
    .regex(/^(https?:\/\/|\{\{)/i, 'Must start with http://, https:// or a placeholder.'),
  method: z.enum(['POST', 'PUT', 'PATCH', 'GET']).optional(),
  headers: z
    .record(
      z.string().regex(HEADER_NAME, 'Not a valid header name.'),
      z
        .string()
        .max(998)
        .refine((v) => !/[\r\n]/.test(v), 'Must not contain line breaks.'),
    )
    .optional(),
  body: z.union([z.string().max(100_000), z.record(z.string(), z.unknown())]).optional(),
});

const updateContact = z
  .object({ data: z.record(z.string(), z.unknown()).optional(), subscribed: z.boolean().optional() })
  .refine((c) => c.data !== undefined || c.subscribed !== undefined, { message: 'Give data, subscribed or both.', params: { code: 'invalid_type' } });

const exit = z.object({ reason: z.string().max(1000).optional() });

const SCHEMAS: Record<UserStepType, z.ZodType> = {
  SEND_EMAIL: sendEmail,
  DELAY: delay,
  WAIT_FOR_EVENT: waitForEvent,
  CONDITION: condition,
  WEBHOOK: webhook,
  UPDATE_CONTACT: updateContact,
  EXIT: exit,
};

export type SendEmailConfig = z.infer<typeof sendEmail>;
export type DelayConfig = z.infer<typeof delay>;
export type WaitForEventConfig = z.infer<typeof waitForEvent>;
export type ConditionConfig = z.infer<typeof condition>;
export type WebhookConfig = z.infer<typeof webhook>;
export type UpdateContactConfig = z.infer<typeof updateContact>;
export type ExitConfig = z.infer<typeof exit>;

const prefixed = (errors: FieldError[]) => errors.map((error) => ({ ...error, field: error.field ? `config.${error.field}` : 'config' }));

/**
 * A step's config checked for its type (docs/decisions/workflows.md): shape problems → 422 with `config.<path>`;
 * broken placeholders in a WEBHOOK → 400 TEMPLATE_SYNTAX_ERROR naming the field. Returns the
 * config as stored (unknown keys dropped).
 */
export function parseStepConfig(type: UserStepType, raw: unknown): Record<string, unknown> {
  const result = SCHEMAS[type].safeParse(raw ?? {}, { reportInput: true });
  if (!result.success) throw new AppError('VALIDATION_ERROR', { errors: prefixed(toFieldErrors(result.error.issues)) });
  const config = result.data as Record<string, unknown>;
  if (type === 'UPDATE_CONTACT') {
    try {
      splitContactData((config as UpdateContactConfig).data, { oneOffAllowed: false });
    } catch (error) {
      if (error instanceof AppError && error.errors) throw new AppError('VALIDATION_ERROR', { errors: prefixed(error.errors) });
      throw error;
    }
  }
  if (type === 'WEBHOOK') checkWebhookTemplates(config as WebhookConfig);
  return config;
}

/** Placeholders in a WEBHOOK render as plain text (no HTML escaping); broken syntax → 400 naming the field. */
function checkWebhookTemplates(config: WebhookConfig): void {
  compile(config.url, 'plain', 'config.url');
  for (const [name, value] of Object.entries(config.headers ?? {})) compile(value, 'plain', `config.headers.${name}`);
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') compile(value, 'plain', path);
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}.${i}`));
    else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
  };
  if (config.body !== undefined) walk(config.body, 'config.body');
}

/** A DELAY's length in seconds. */
export const delaySeconds = (config: DelayConfig) => config.amount * DELAY_UNITS[config.unit];
