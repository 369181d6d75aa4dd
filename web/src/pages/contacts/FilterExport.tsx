import { Button, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { ConditionBuilder } from '../../ui/conditions/ConditionBuilder.tsx';
import { useFieldOptions } from '../../ui/conditions/fields.ts';
import { newTree, type Tree } from '../../ui/conditions/tree.ts';
import { useLiveCount } from '../../ui/conditions/useLiveCount.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { saveFile } from '../../ui/saveFile.ts';

/**
 * A filter over contacts' data, events and segments made with the segment builder, its live count,
 * and "Export CSV" of the contacts it selects (or of every contact with no filter), streamed by
 * GET /contacts/export. The contacts table shows the same contacts (`onApply`).
 */
export function FilterExport({ onApply }: { onApply: (condition: string | undefined) => void }) {
  const project = useProject();
  const [open, setOpen] = useState(false);
  const [condition, setCondition] = useState<Tree>(newTree);
  const fields = useFieldOptions(project.id);
  const live = useLiveCount(project.id, open ? condition : undefined);
  // The table follows the last tree the server counted; one it refused (shown at its filter) or
  // one still being typed leaves the table as it was.
  useEffect(() => onApply(open ? live.accepted : undefined), [open, live.accepted, onApply]);
  const exportCsv = useMutation({
    mutationFn: async () => {
      const blob = await call(api.GET('/contacts/export', { params: { query: open ? { condition: JSON.stringify(condition) } : {} }, parseAs: 'blob' }));
      saveFile(blob as unknown as Blob, open ? 'contacts-filtered.csv' : 'contacts.csv');
    },
  });
  return (
    <Stack gap="xs">
      <Group gap="xs">
        <Button variant="default" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          {open ? 'Remove the filter' : 'Filter by data, events or segments'}
        </Button>
        <Button variant="default" loading={exportCsv.isPending} onClick={() => exportCsv.mutate()}>
          {open ? 'Export the filtered contacts (CSV)' : 'Export all contacts (CSV)'}
        </Button>
      </Group>
      <ErrorMessage error={exportCsv.error} />
      {open && (
        <Paper withBorder p="md" radius="md" component="section" aria-label="Contact filter">
          <Stack>
            <Group justify="space-between">
              <Text fw={600}>Filter</Text>
              <Group gap="xs" aria-live="polite">
                {live.counting && <Loader size="xs" aria-label="Counting" />}
                <Text fw={600} data-testid="filter-count">
                  {live.count === undefined ? 'Not counted yet' : `${live.count.toLocaleString()} contact${live.count === 1 ? '' : 's'} match the filter`}
                </Text>
              </Group>
            </Group>
            <ConditionBuilder value={condition} onChange={setCondition} options={fields.options} errors={live.errors} />
            {live.general && (
              <Text c="red.8" size="sm" role="alert">
                {live.general}
              </Text>
            )}
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}
