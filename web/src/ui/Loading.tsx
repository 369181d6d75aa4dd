import { Skeleton, Stack } from '@mantine/core';

/** Placeholder rows of the size of the content to come, so nothing shifts when it arrives. */
export function Loading({ rows = 4, label = 'Loading' }: { rows?: number; label?: string }) {
  return (
    <Stack gap="xs" aria-busy="true" aria-label={label} role="status">
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} height={36} />
      ))}
    </Stack>
  );
}
