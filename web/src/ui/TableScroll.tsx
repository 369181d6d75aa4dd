import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways on narrow screens. The scrolling viewport takes focus (WCAG 2.1.1:
 * a keyboard user scrolls it with the arrow keys) and is named after the table.
 */
export function TableScroll({ minWidth, label, children }: { minWidth: number; label: string; children: ReactNode }) {
  return (
    <Table.ScrollContainer minWidth={minWidth} scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': `${label} (scrolls sideways)` } }}>
      {children}
    </Table.ScrollContainer>
  );
}
