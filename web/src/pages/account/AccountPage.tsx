import { Badge, Button, Group, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { api, call } from '../../api/client.ts';
import { DataTable } from '../../ui/DataTable.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { TwoFactorSection } from './TwoFactorSection.tsx';

const SESSIONS = ['sessions'];

/** The signed-in account: its live sessions (docs/security.md) and its password. */
function SessionsSection() {
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: SESSIONS, queryFn: async () => (await call(api.GET('/users/@me/sessions'))).data });
  const refresh = () => queryClient.invalidateQueries({ queryKey: SESSIONS });
  const signOut = useMutation({
    mutationFn: (id: string) => call(api.DELETE('/users/@me/sessions/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const everywhere = useMutation({ mutationFn: () => call(api.DELETE('/users/@me/sessions')), onSuccess: refresh });
  const others = (sessions.data ?? []).filter((s) => !s.current).length;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="sessions-title">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4" id="sessions-title">
            Sessions
          </Title>
          <Button color="red" variant="outline" disabled={others === 0} loading={everywhere.isPending} onClick={() => everywhere.mutate()}>
            Sign out everywhere else
          </Button>
        </Group>
        <Text size="sm" c="dimmed">
          Where your account is signed in. Signing a session out ends it at once.
        </Text>
        {everywhere.isSuccess && (
          <Text size="sm" role="status">
            Signed out of {everywhere.data.ended} other session{everywhere.data.ended === 1 ? '' : 's'}.
          </Text>
        )}
        <ErrorMessage error={sessions.error ?? signOut.error ?? everywhere.error} />
        <DataTable
          label="Signed-in sessions"
          minWidth={560}
          rows={sessions.data ?? []}
          rowKey={(session) => session.id}
          busy={sessions.isFetching}
          columns={[
            {
              key: 'device',
              header: 'Device',
              rowHeader: true,
              cell: (session) => (
                <Group gap="xs">
                  <span title={session.userAgent}>{session.device}</span>
                  {session.current && <Badge variant="light">This device</Badge>}
                </Group>
              ),
            },
            { key: 'ip', header: 'Address', cell: (session) => session.ip },
            { key: 'seen', header: 'Last seen', cell: (session) => new Date(session.lastSeenAt).toLocaleString() },
            {
              key: 'actions',
              header: <span className="mantine-visually-hidden">Actions</span>,
              cell: (session) =>
                !session.current && (
                  <Button
                    size="compact-sm"
                    variant="default"
                    onClick={() => signOut.mutate(session.id)}
                    aria-label={`Sign out ${session.device}, last seen ${new Date(session.lastSeenAt).toLocaleString()}`}
                  >
                    Sign out
                  </Button>
                ),
            },
          ]}
        />
      </Stack>
    </Paper>
  );
}

function PasswordSection() {
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string }) => call(api.POST('/users/@me/password', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SESSIONS }),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    change.mutate({ currentPassword: String(data.get('currentPassword')), newPassword: String(data.get('newPassword')) }, { onSuccess: () => form.reset() });
  }
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="password-title">
      <form onSubmit={submit}>
        <Stack maw={420}>
          <Title order={2} size="h4" id="password-title">
            Password
          </Title>
          <PasswordInput name="currentPassword" label="Current password" autoComplete="current-password" required />
          <PasswordInput name="newPassword" label="New password" autoComplete="new-password" required minLength={8} maxLength={128} />
          <ErrorMessage error={change.error} />
          {change.isSuccess && (
            <Text size="sm" role="status">
              Password changed; {change.data.endedSessions} other session{change.data.endedSessions === 1 ? ' was' : 's were'} signed out.
            </Text>
          )}
          <Group>
            <Button type="submit" loading={change.isPending}>
              Change password
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

export function Component() {
  return (
    <Stack maw={900}>
      <PageHeader title="Account" description="Your sessions, your password and two-factor sign-in." />
      <SessionsSection />
      <PasswordSection />
      <TwoFactorSection />
    </Stack>
  );
}
