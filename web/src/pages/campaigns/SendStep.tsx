import { Alert, Button, Group, Modal, NativeSelect, Paper, Radio, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useMe } from '../../api/session.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { ContentChecks, useCampaignChecks } from './ContentChecks.tsx';
import { type Campaign, campaignKeys } from './campaigns.ts';
import { instantIn, viewerZone, wallClockIn, zones } from './schedule.ts';

type Props = {
  campaign: Campaign;
  /** Saves unsaved edits first (a test and a send use the saved campaign); false when saving failed. */
  saveFirst: () => Promise<boolean>;
};

/**
 * Step 4: a test copy, then send now or at a date, time and zone, after a confirmation naming how
 * many get it. The content's checks are listed, and a test asks to go ahead while there are any.
 */
export function SendStep({ campaign, saveFirst }: Props) {
  const project = useProject();
  const me = useMe();
  const queryClient = useQueryClient();
  const [testTo, setTestTo] = useState('');
  const [mode, setMode] = useState<'now' | 'later'>(campaign.scheduledFor ? 'later' : 'now');
  const zone0 = viewerZone();
  const initial = campaign.scheduledFor ? wallClockIn(new Date(campaign.scheduledFor), zone0) : { date: '', time: '09:00' };
  const [date, setDate] = useState(initial.date);
  const [time, setTime] = useState(initial.time);
  const [zone, setZone] = useState(zone0);
  const [confirming, setConfirming] = useState(false);
  // The address a test waits to go to while its checks are confirmed.
  const [testPending, setTestPending] = useState<string>();
  const checks = useCampaignChecks(campaign);
  const found = checks.data ?? [];
  const when = mode === 'later' ? instantIn(date, time, zone) : undefined;

  const test = useMutation({
    mutationFn: async (email: string) => {
      if (!(await saveFirst())) return undefined;
      return call(api.POST('/campaigns/{id}/test', { params: { path: { id: campaign.id } }, body: { email } }));
    },
  });
  const audience = useQuery({
    queryKey: ['campaigns', project.id, 'saved-audience', campaign.id, campaign.updatedAt],
    queryFn: () => call(api.GET('/campaigns/{id}/audience', { params: { path: { id: campaign.id } } })),
    enabled: confirming,
  });
  const send = useMutation({
    mutationFn: async () => {
      if (!(await saveFirst())) return undefined;
      return call(api.POST('/campaigns/{id}/send', { params: { path: { id: campaign.id } }, body: { scheduledFor: when ? when.toISOString() : null } }));
    },
    onSuccess: async () => {
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: campaignKeys.all(project.id) });
    },
  });

  async function submitTest(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const to = testTo.trim() || me.data?.email || '';
    const list = checks.data ?? (await checks.refetch()).data ?? [];
    if (list.length > 0) setTestPending(to);
    else test.mutate(to);
  }
  function sendTestAnyway() {
    if (testPending !== undefined) test.mutate(testPending);
    setTestPending(undefined);
  }

  const eligible = audience.data?.eligible;
  return (
    <Stack maw={720}>
      <ContentChecks checks={found} />
      <Paper withBorder p="md" radius="md" component="form" onSubmit={(event) => void submitTest(event)} aria-labelledby="test-title">
        <Stack gap="xs">
          <Title order={2} size="h4" id="test-title">
            Send a test
          </Title>
          <Text size="sm" c="dimmed">
            One copy, “[Test]” before the subject. It counts nowhere and changes nothing.
          </Text>
          <Group align="flex-end" gap="xs" wrap="wrap">
            <TextInput label="Test address" type="email" placeholder={me.data?.email} value={testTo} onChange={(e) => setTestTo(e.currentTarget.value)} flex="1 1 220px" />
            <Button type="submit" variant="default" loading={test.isPending}>
              Send test
            </Button>
          </Group>
          {test.data && (
            <Text size="sm" role="status">
              {test.data.message}
            </Text>
          )}
          <ErrorMessage error={test.error} />
        </Stack>
      </Paper>

      <Paper withBorder p="md" radius="md" aria-labelledby="send-title" component="section">
        <Stack gap="sm">
          <Title order={2} size="h4" id="send-title">
            Send
          </Title>
          <Radio.Group label="When" value={mode} onChange={(value) => setMode(value as typeof mode)}>
            <Group mt={6}>
              <Radio value="now" label="Now" />
              <Radio value="later" label="At a date and time" />
            </Group>
          </Radio.Group>
          {mode === 'later' && (
            <>
              <Group align="flex-start" gap="xs" wrap="wrap">
                <TextInput label="Date" type="date" value={date} onChange={(e) => setDate(e.currentTarget.value)} w={170} />
                <TextInput label="Time" type="time" value={time} onChange={(e) => setTime(e.currentTarget.value)} w={130} />
                <NativeSelect label="Time zone" value={zone} onChange={(e) => setZone(e.currentTarget.value)} data={zones()} flex="1 1 200px" />
              </Group>
              {when && (
                <Text size="sm" data-testid="schedule-local">
                  That is {when.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' })} your time ({zone0}).
                </Text>
              )}
            </>
          )}
          <Group>
            <Button disabled={mode === 'later' && !when} onClick={() => setConfirming(true)}>
              {mode === 'now' ? 'Send now…' : 'Schedule…'}
            </Button>
          </Group>
        </Stack>
      </Paper>

      <Modal opened={testPending !== undefined} onClose={() => setTestPending(undefined)} title="Send the test anyway?">
        <Stack>
          <ContentChecks checks={found} label="Checks of this content" />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setTestPending(undefined)}>
              Not yet
            </Button>
            <Button onClick={sendTestAnyway}>Send test anyway</Button>
          </Group>
        </Stack>
      </Modal>

      <Modal opened={confirming} onClose={() => setConfirming(false)} title={mode === 'now' ? 'Send this campaign now?' : 'Schedule this campaign?'}>
        <Stack>
          {audience.isPending && <Text size="sm">Counting who will get it…</Text>}
          {eligible !== undefined && (
            <Text data-testid="confirm-count">
              {eligible.toLocaleString()} contact{eligible === 1 ? '' : 's'} will get “{campaign.subject}”
              {when ? ` on ${when.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' })}` : ' now'}.
            </Text>
          )}
          {eligible === 0 && (
            <Alert color="yellow" variant="light">
              Nobody in this audience can be mailed now.
            </Alert>
          )}
          <ContentChecks checks={found} label="Checks of this content" />
          <ErrorMessage error={send.error ?? audience.error ?? checks.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Not yet
            </Button>
            <Button loading={send.isPending} disabled={!eligible || checks.isPending} onClick={() => send.mutate()}>
              {mode === 'now' ? `Send to ${eligible?.toLocaleString() ?? '…'}` : `Schedule for ${eligible?.toLocaleString() ?? '…'}`}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
