import type { paths } from '@mailroom/client';
import type { Tree } from '../../ui/conditions/tree.ts';
import type { Tone } from '../../ui/StatusBadge.tsx';

export type Campaign = paths['/campaigns/{id}']['get']['responses'][200]['content']['application/json']['data'];
export type CampaignStatus = Campaign['status'];
export type AudienceCheck = paths['/campaigns/audience']['post']['responses'][200]['content']['application/json'];
export type CampaignStats = paths['/campaigns/{id}/stats']['get']['responses'][200]['content']['application/json']['data'];
export type Recipient = paths['/campaigns/{id}/recipients']['get']['responses'][200]['content']['application/json']['data'][number];

export const STATUSES: CampaignStatus[] = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'];
export const STATUS_LABELS: Record<CampaignStatus, string> = { DRAFT: 'Draft', SCHEDULED: 'Scheduled', SENDING: 'Sending', SENT: 'Sent', CANCELLED: 'Cancelled' };
export const STATUS_TONES: Record<CampaignStatus, Tone> = { DRAFT: 'neutral', SCHEDULED: 'info', SENDING: 'warn', SENT: 'good', CANCELLED: 'bad' };

export const campaignKeys = {
  all: (projectId: string) => ['campaigns', projectId] as const,
  list: (projectId: string, filters: object) => ['campaigns', projectId, 'list', filters] as const,
  one: (projectId: string, id: string) => ['campaigns', projectId, 'one', id] as const,
  stats: (projectId: string, id: string) => ['campaigns', projectId, 'stats', id] as const,
  recipients: (projectId: string, id: string, filters: object) => ['campaigns', projectId, 'recipients', id, filters] as const,
};

export const editable = (status: CampaignStatus) => status === 'DRAFT' || status === 'SCHEDULED';

/** What the editor edits, as strings (empty = unset). */
export type Draft = {
  name: string;
  templateId: string;
  subject: string;
  body: string;
  fromLocal: string;
  fromDomain: string;
  fromName: string;
  replyTo: string;
  type: 'MARKETING' | 'TRANSACTIONAL';
  audienceType: 'ALL' | 'SEGMENT' | 'FILTERED';
  segmentId: string;
  audienceCondition: Tree | null;
};

export const EMPTY_DRAFT: Draft = {
  name: '',
  templateId: '',
  subject: '',
  body: '<h1>Hello {{ name ?? "there" }}</h1>\n<p>Write your message here.</p>\n',
  fromLocal: 'news',
  fromDomain: '',
  fromName: '',
  replyTo: '',
  type: 'MARKETING',
  audienceType: 'ALL',
  segmentId: '',
  audienceCondition: null,
};

export function draftOf(campaign: Campaign): Draft {
  const at = campaign.from.lastIndexOf('@');
  return {
    name: campaign.name,
    templateId: campaign.templateId ?? '',
    subject: campaign.subject,
    body: campaign.body,
    fromLocal: campaign.from.slice(0, at),
    fromDomain: campaign.from.slice(at + 1),
    fromName: campaign.fromName ?? '',
    replyTo: campaign.replyTo ?? '',
    type: campaign.type === 'TRANSACTIONAL' ? 'TRANSACTIONAL' : 'MARKETING',
    audienceType: campaign.audienceType,
    segmentId: campaign.segmentId ?? '',
    audienceCondition: (campaign.audienceCondition as Tree | null) ?? null,
  };
}

/** The audience part of the body: what the audience check and the campaign body share. */
export function audienceOf(draft: Draft) {
  return {
    type: draft.type,
    audienceType: draft.audienceType,
    ...(draft.audienceType === 'SEGMENT' ? { segmentId: draft.segmentId || null } : {}),
    ...(draft.audienceType === 'FILTERED' ? { audienceCondition: draft.audienceCondition as unknown as Record<string, unknown> | null } : {}),
  };
}

/** The create or PUT body. */
export function bodyOf(draft: Draft) {
  const orNull = (value: string) => (value.trim() === '' ? null : value.trim());
  return {
    name: draft.name.trim(),
    subject: draft.subject,
    body: draft.body,
    from: `${draft.fromLocal.trim()}@${draft.fromDomain}`,
    fromName: orNull(draft.fromName),
    replyTo: orNull(draft.replyTo),
    templateId: draft.templateId || null,
    ...audienceOf(draft),
  };
}

export const percent = (value: number) => `${value.toLocaleString(undefined, { maximumFractionDigits: 1 })}%`;
