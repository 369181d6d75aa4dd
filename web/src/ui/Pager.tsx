import { Button, Group, Text } from '@mantine/core';

/**
 * Previous and next page of a paged list, with "Page n of m"; shown only when there are several
 * pages. `waiting` holds "Next page" while the next page's data is still the placeholder.
 */
export function Pager({ page, totalPages, onPage, waiting = false }: { page: number; totalPages: number; onPage: (page: number) => void; waiting?: boolean }) {
  if (totalPages <= 1) return null;
  return (
    <Group justify="space-between">
      <Button variant="default" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </Button>
      <Text size="sm">
        Page {page} of {totalPages}
      </Text>
      <Button variant="default" disabled={page >= totalPages || waiting} onClick={() => onPage(page + 1)}>
        Next page
      </Button>
    </Group>
  );
}
