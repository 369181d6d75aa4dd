import { Paper, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** What a list shows when it has nothing yet, and how to get something into it. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Paper withBorder p="xl" radius="md">
      <Stack align="center" gap="xs" ta="center">
        <Text fw={600}>{title}</Text>
        {children && (
          <Text c="dimmed" size="sm" component="div">
            {children}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
