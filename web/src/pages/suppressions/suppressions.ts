import type { paths } from '@mailroom/client';

export type Suppression = paths['/suppressions']['get']['responses'][200]['content']['application/json']['data'][number];
export type SuppressionReason = Suppression['reason'];

export const suppressionKeys = {
  all: (projectId: string) => ['suppressions', projectId] as const,
  page: (projectId: string, search: string, cursor: string | undefined) => ['suppressions', projectId, search, cursor ?? ''] as const,
};

/** The reasons in words (docs/decisions/suppressions.md). */
export const REASON_LABELS: Record<SuppressionReason, string> = {
  HARD_BOUNCE: 'Hard bounce',
  COMPLAINT: 'Spam complaint',
  MANUAL: 'Added by hand',
};

export const REASON_HELP: Record<SuppressionReason, string> = {
  HARD_BOUNCE: 'The receiving server said the address does not exist.',
  COMPLAINT: 'The recipient marked a message as spam.',
  MANUAL: 'Someone on the team, or an API call, listed it.',
};
