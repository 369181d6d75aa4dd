import type { paths } from '@mailroom/client';

export type Segment = paths['/segments/{id}']['get']['responses'][200]['content']['application/json'];

export const segmentKeys = {
  all: (projectId: string) => ['segments', projectId] as const,
  list: (projectId: string) => ['segments', projectId, 'list'] as const,
  one: (projectId: string, id: string) => ['segments', projectId, 'one', id] as const,
  members: (projectId: string, id: string, page: number) => ['segments', projectId, 'members', id, page] as const,
};

export const TYPE_LABELS = { DYNAMIC: 'Dynamic', STATIC: 'Static' } as const;

/** Addresses pasted in any shape: one per line, or separated by commas, semicolons or spaces. */
export const parseAddresses = (text: string) => [
  ...new Set(
    text
      .split(/[\s,;]+/)
      .map((a) => a.trim().toLowerCase())
      .filter((a) => a.includes('@')),
  ),
];
