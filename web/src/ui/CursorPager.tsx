import { Button, Group, Text } from '@mantine/core';

/**
 * Previous and next page of a cursor-paged list (contacts, suppressions): the pages seen keep
 * their cursors, so "Previous page" goes back without a total. Shown only when there is more than
 * one page. `canGoOn` holds "Next page" until the next page's cursor is known.
 */
export function CursorPager({ page, hasMore, canGoOn, onPrevious, onNext }: { page: number; hasMore: boolean; canGoOn: boolean; onPrevious: () => void; onNext: () => void }) {
  if (page === 0 && !hasMore) return null;
  return (
    <Group justify="space-between">
      <Button variant="default" disabled={page === 0} onClick={onPrevious}>
        Previous page
      </Button>
      <Text size="sm">Page {page + 1}</Text>
      <Button variant="default" disabled={!hasMore || !canGoOn} onClick={onNext}>
        Next page
      </Button>
    </Group>
  );
}
