import { Button, Group, Modal, Paper, Progress, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { type Campaign, type CampaignStats, campaignKeys } from './campaigns.ts';
import { useCampaignStats } from './useCampaignStats.ts';

const PROVIDER_NAMES: Record<CampaignStats['throttledProviders'][number]['provider'], string> = {
  gmail: 'Gmail',
  microsoft: 'Microsoft (Outlook, Hotmail)',
  yahoo: 'Yahoo',
  apple: 'Apple (iCloud)',
  other: 'Other receivers',
};

const perSecond = (rate: number) => `${rate.toLocaleString(undefined, { maximumFractionDigits: 2 })} a second`;

/** Why part of a sending campaign has not left yet, in words: its domain's warm-up, receivers that asked it to slow down. */
function Waits({ stats }: { stats: CampaignStats | undefined }) {
  if (!stats) return null;
  const { warmupWaiting: warmup, throttledProviders: throttled } = stats;
  if (warmup.count === 0 && throttled.length === 0) return null;
  return (
    <Stack gap={4} data-testid="campaign-waits" aria-live="polite">
      {warmup.count > 0 && (
        <Text size="sm">
          {warmup.count.toLocaleString()} {warmup.count === 1 ? 'message waits' : 'messages wait'} for the sending domain’s warm-up: today’s cap is used up.
          {warmup.until ? ` They leave from ${new Date(warmup.until).toLocaleString()}.` : ''}
        </Text>
      )}
      {throttled.map((rate) => (
        <Text size="sm" key={rate.provider}>
          {PROVIDER_NAMES[rate.provider]} asked to slow down: mail to it leaves at {perSecond(rate.ratePerSecond)} for now, and faster as it accepts more.
        </Text>
      ))}
    </Stack>
  );
}

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
  const stats = useCampaignStats(campaign, true);
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
        <Waits stats={stats.data} />
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
