import { z } from 'zod';
import { type ConditionTree, cleanConditionTree, conditionTreeSchema } from '../conditions/index.ts';
import { contactSchema } from '../contacts/contacts.schemas.ts';
import { offsetPageFields } from '../pagination.ts';

export const SEGMENT_TYPES = ['DYNAMIC', 'STATIC'] as const;
export type SegmentType = (typeof SEGMENT_TYPES)[number];

/** the API reference (Segment) and Limits. */
export const MAX_NAME = 100;
export const MAX_DESCRIPTION = 500;
/** docs/decisions/segments.md: emails per members call. */
export const MAX_MEMBER_EMAILS = 1000;
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../pagination.ts';

/** A segments row as the queries select it. */
export type SegmentRow = {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  type: SegmentType;
  condition: ConditionTree | null;
  track_membership: boolean;
  member_count: number;
  created_at: Date | string;
  updated_at: Date | string;
};

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

export function toSegment(row: SegmentRow): Segment {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    condition: row.condition ? cleanConditionTree(row.condition) : null,
    trackMembership: row.track_membership,
    memberCount: row.member_count,
    projectId: row.project_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export const segmentSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  type: z.enum(SEGMENT_TYPES),
  condition: conditionTreeSchema.nullable(),
  trackMembership: z.boolean(),
  memberCount: z.number().int().describe('cached; refreshed in the background, on create and update, and by POST …/refresh'),
  projectId: z.uuid(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Segment = z.infer<typeof segmentSchema>;

/**
 * The route-level body of POST and PATCH /segments: any object. the API reference wants a flat 400 `{ error }`
 * for a bad segment body, not the 422 of schema validation, so the fields are checked by the
 * service (segmentInput below) and the types here only document them.
 */
export const segmentBody = z.object({
  name: z.unknown().optional().describe(`string, 1–${MAX_NAME} characters (required on create)`),
  description: z.unknown().optional().describe(`string up to ${MAX_DESCRIPTION} characters, or null`),
  type: z.unknown().optional().describe('DYNAMIC (default) or STATIC; fixed at creation'),
  condition: z.unknown().optional().describe('condition tree (docs/decisions/segments.md): required for DYNAMIC, ignored for STATIC'),
  trackMembership: z.unknown().optional().describe('boolean, default false: POST …/compute emits segment.<slug>.entry / .exit'),
});
export type SegmentBody = z.infer<typeof segmentBody>;

/** The checked fields (the service reports the first issue as a flat 400). */
export const segmentInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(MAX_NAME, `name must be at most ${MAX_NAME} characters`).optional(),
  description: z.string().max(MAX_DESCRIPTION, `description must be at most ${MAX_DESCRIPTION} characters`).nullable().optional(),
  type: z.enum(SEGMENT_TYPES, { message: 'type must be DYNAMIC or STATIC' }).optional(),
  condition: z.unknown().optional(),
  trackMembership: z.boolean({ message: 'trackMembership must be a boolean' }).optional(),
});
export type SegmentInput = z.infer<typeof segmentInput>;

export const segmentIdParams = z.object({ id: z.uuid() });

export const segmentContactsQuery = z.object({
  ...offsetPageFields,
});

export const segmentContactsPage = z.object({
  data: z.array(contactSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

const memberEmail = z.string().trim().toLowerCase().max(254).pipe(z.email());

export const addMembersBody = z.object({
  emails: z.array(memberEmail).min(1).describe(`up to ${MAX_MEMBER_EMAILS} addresses`),
  createMissing: z.boolean().optional().describe('create contacts for unknown addresses (default false)'),
  subscribed: z.boolean().optional().describe('`subscribed` of the contacts created by createMissing (default true)'),
});
export const removeMembersBody = z.object({ emails: z.array(memberEmail).min(1).describe(`up to ${MAX_MEMBER_EMAILS} addresses`) });

export const addedMembers = z.object({ added: z.number().int(), created: z.number().int(), notFound: z.array(z.string()) });
export const removedMembers = z.object({ removed: z.number().int() });
export const computedMembership = z.object({ entered: z.number().int(), exited: z.number().int(), total: z.number().int() });

/** GET /contacts/{id}/segments: the segments a contact is a member of now. */
export const contactSegmentList = z.object({
  data: z.array(z.object({ id: z.uuid(), name: z.string(), type: z.enum(SEGMENT_TYPES), trackMembership: z.boolean() })),
});

/** GET /segments/{id}/usage. */
export const segmentUsageSchema = z.object({
  campaigns: z.array(z.object({ id: z.uuid(), name: z.string(), status: z.string() })),
  segments: z.array(z.object({ id: z.uuid(), name: z.string() })),
  workflows: z.array(z.object({ id: z.uuid(), name: z.string(), enabled: z.boolean(), eventName: z.string() })),
  membershipEvents: z.object({ entry: z.string(), exit: z.string() }).nullable().describe('the event names of entries and exits, for a segment whose membership is tracked'),
});
