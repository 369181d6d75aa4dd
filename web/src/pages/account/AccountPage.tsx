import { Badge, Button, Group, Paper, PasswordInput, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { api, call } from '../../api/client.ts';
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
        <Table.ScrollContainer minWidth={560}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Device</Table.Th>
                <Table.Th>Address</Table.Th>
                <Table.Th>Last seen</Table.Th>
                <Table.Th>
                  <span className="mantine-visually-hidden">Actions</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(sessions.data ?? []).map((session) => (
                <Table.Tr key={session.id}>
                  <Table.Td>
                    <Group gap="xs">
                      <span title={session.userAgent}>{session.device}</span>
                      {session.current && <Badge variant="light">This device</Badge>}
                    </Group>
                  </Table.Td>
                  <Table.Td>{session.ip}</Table.Td>
                  <Table.Td>{new Date(session.lastSeenAt).toLocaleString()}</Table.Td>
                  <Table.Td>
                    {!session.current && (
                      <Button
                        size="compact-sm"
                        variant="default"
                        onClick={() => signOut.mutate(session.id)}
                        aria-label={`Sign out ${session.device}, last seen ${new Date(session.lastSeenAt).toLocaleString()}`}
                      >
                        Sign out
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
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
