import { Alert, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';

/** A datetime-local value (the browser's zone) as an ISO instant; empty stays undefined. */
const instant = (local: FormDataEntryValue | null) => (local ? new Date(String(local)).toISOString() : undefined);

/** Sends every failed message of a time window again (POST /webhook-endpoints/{id}/replay). */
export function ReplayWindow({ endpointId, disabled }: { endpointId: string; disabled: boolean }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const replay = useMutation({
    mutationFn: (window: { since: string; until?: string }) => call(api.POST('/webhook-endpoints/{id}/replay', { params: { path: { id: endpointId } }, body: window })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook-endpoints', project.id, endpointId, 'messages'] }),
  });
  const [missingSince, setMissingSince] = useState(false);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const since = instant(form.get('since'));
    setMissingSince(!since);
    if (since) replay.mutate({ since, until: instant(form.get('until')) });
  }
  const apiError = asApiError(replay.error);
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="replay-window-title">
      <form onSubmit={submit} noValidate aria-label="Replay failed messages of a time window">
        <Stack gap="xs">
          <Title order={2} size="h4" id="replay-window-title">
            Replay failed messages
          </Title>
          <Text size="sm" c="dimmed">
            After an outage on your side: every message of this window that failed is sent again now. Times are in your browser's time zone (
            {Intl.DateTimeFormat().resolvedOptions().timeZone}).
          </Text>
          <Group align="flex-start" gap="xs">
            <TextInput
              type="datetime-local"
              name="since"
              label="From"
              required
              miw={210}
              disabled={disabled}
              error={missingSince ? 'Pick when the window starts.' : apiError?.field('since')}
            />
            <TextInput type="datetime-local" name="until" label="Until" description="Empty: until now" miw={210} disabled={disabled} error={apiError?.field('until')} />
            <Button type="submit" mt={25} variant="default" loading={replay.isPending} disabled={disabled}>
              Replay failed messages
            </Button>
          </Group>
          <ErrorMessage error={replay.error} shownFields={['since', 'until']} />
          {replay.data && (
            <Alert color="teal" role="status" p="xs">
              {replay.data.count === 0
                ? 'No failed message in that window.'
                : `${replay.data.count} failed ${replay.data.count === 1 ? 'message is' : 'messages are'} being sent again.`}
            </Alert>
          )}
        </Stack>
      </form>
    </Paper>
  );
}
