import { Button, Group, Modal, Paper, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { JobProgress, useJob } from './jobs.tsx';

type Action = 'subscribe' | 'unsubscribe' | 'delete';
const LABELS: Record<Action, string> = { subscribe: 'Subscribe', unsubscribe: 'Unsubscribe', delete: 'Delete' };

/** Actions on the selected contacts, run as a queued job whose progress shows until it ends. */
export function BulkBar({ selected, onDone }: { selected: string[]; onDone: () => void }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const [confirmingDelete, confirm] = useDisclosure(false);
  const [job, setJob] = useState<{ id: string; action: Action }>();
  const start = useMutation({
    mutationFn: (action: Action) => {
      const body = { contactIds: selected };
      const pending =
        action === 'subscribe'
          ? api.POST('/contacts/bulk-subscribe', { body })
          : action === 'unsubscribe'
            ? api.POST('/contacts/bulk-unsubscribe', { body })
            : api.POST('/contacts/bulk-delete', { body });
      return call(pending);
    },
    onSuccess: (started, action) => {
      setJob({ id: started.jobId, action });
      confirm.close();
      onDone();
    },
  });
  const progress = useJob('bulk', job?.id, () => queryClient.invalidateQueries({ queryKey: ['contacts', project.id] }));

  if (selected.length === 0 && !job) return null;
  return (
    <Paper withBorder p="sm" radius="md" aria-label="Bulk actions" component="section">
      <Stack gap="xs">
        {selected.length > 0 && (
          <Group gap="xs">
            <Text size="sm" fw={600}>
              {selected.length} selected
            </Text>
            <Button size="xs" variant="default" onClick={() => start.mutate('subscribe')} loading={start.isPending && start.variables === 'subscribe'}>
              Subscribe
            </Button>
            <Button size="xs" variant="default" onClick={() => start.mutate('unsubscribe')} loading={start.isPending && start.variables === 'unsubscribe'}>
              Unsubscribe
            </Button>
            <Button size="xs" variant="outline" color="red" onClick={confirm.open}>
              Delete
            </Button>
          </Group>
        )}
        {!confirmingDelete && <ErrorMessage error={start.error} />}
        {job && <JobProgress job={progress.data} error={progress.error} label={`${LABELS[job.action]} contacts`} />}
      </Stack>
      <Modal opened={confirmingDelete} onClose={confirm.close} title={`Delete ${selected.length} contacts?`} centered>
        <Stack>
          <Text size="sm">Their data, events and subscription are deleted. This cannot be undone.</Text>
          <ErrorMessage error={start.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={confirm.close}>
              Cancel
            </Button>
            <Button color="red" onClick={() => start.mutate('delete')} loading={start.isPending}>
              Delete contacts
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
