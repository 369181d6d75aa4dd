import { Button, Group, Modal, Paper, Progress, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { type Campaign, campaignKeys } from './campaigns.ts';

/** A SENDING campaign: sent of total as the server counts them (the page re-reads it every second), and cancel. */
export function ProgressPanel({ campaign }: { campaign: Campaign }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const cancel = useMutation({
    mutationFn: () => call(api.POST('/campaigns/{id}/cancel', { params: { path: { id: campaign.id } } })),
    onSuccess: async () => {
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: campaignKeys.all(project.id) });
    },
  });
  const total = campaign.totalRecipients;
  const share = total > 0 ? Math.min(100, (campaign.sentCount / total) * 100) : 0;
  const label = `${campaign.sentCount.toLocaleString()} of ${total.toLocaleString()} sent`;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label="Sending progress">
      <Stack gap="sm">
        <Group justify="space-between">
          <Text fw={600} data-testid="progress-label" aria-live="polite">
            {label}
          </Text>
          <Text size="sm">{Math.floor(share)}%</Text>
        </Group>
        <Progress value={share} size="xl" aria-label={`Sending: ${label}`} animated={share < 100} />
        <Group>
          <Button variant="default" color="red" onClick={() => setConfirming(true)}>
            Cancel sending
          </Button>
        </Group>
      </Stack>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title="Cancel sending?">
        <Stack>
          <Text size="sm">
            Messages already handed over still arrive; the {Math.max(0, total - campaign.sentCount).toLocaleString()} not yet sent never leave. A cancelled campaign cannot be
            resumed: duplicate it to send again.
          </Text>
          <ErrorMessage error={cancel.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Keep sending
            </Button>
            <Button color="red" loading={cancel.isPending} onClick={() => cancel.mutate()}>
              Cancel sending
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
