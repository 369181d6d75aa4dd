import { Anchor, Button, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { usePageTitle } from '../../ui/usePageTitle.ts';

/** Where to go after logging in: only a path of this app, never another site. */
export function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function Component() {
  usePageTitle('Log in');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const queryClient = useQueryClient();
  // With two-factor sign-in, the right password answers a challenge: the second step asks for a code.
  const [challenge, setChallenge] = useState<string>();
  const [useRecovery, setUseRecovery] = useState(false);
  async function loggedIn() {
    await queryClient.invalidateQueries();
    navigate(safeNext(params.get('next')), { replace: true });
  }
  const login = useMutation({
    mutationFn: (body: { email: string; password: string }) => call(api.POST('/auth/login', { body })),
    onSuccess: async (result) => {
      if ('challenge' in result) setChallenge(result.challenge);
      else await loggedIn();
    },
  });
  const second = useMutation({
    mutationFn: (body: { challenge: string; code?: string; recoveryCode?: string }) => call(api.POST('/auth/login/totp', { body })),
    onSuccess: loggedIn,
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    login.mutate({ email: String(form.get('email')), password: String(form.get('password')) });
  }
  function submitCode(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget).get('code')).trim();
    if (challenge) second.mutate(useRecovery ? { challenge, recoveryCode: value } : { challenge, code: value });
  }
  const error = asApiError(login.error);
  if (challenge) {
    const expired = asApiError(second.error)?.code === 'INVALID_TOTP_CHALLENGE';
    return (
      <form onSubmit={submitCode} noValidate key={useRecovery ? 'recovery' : 'code'}>
        <Stack>
          <Title order={2} size="h3">
            Two-factor sign-in
          </Title>
          <Text size="sm">{useRecovery ? 'Enter one of your recovery codes. Each one works once.' : 'Enter the 6-digit code your authenticator app shows for Mailroom.'}</Text>
          {useRecovery ? (
            <TextInput name="code" label="Recovery code" autoComplete="off" required />
          ) : (
            <TextInput name="code" label="Code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required />
          )}
          <ErrorMessage error={second.error} />
          <Button type="submit" loading={second.isPending}>
            Verify
          </Button>
          <Group justify="space-between">
            <Anchor component="button" type="button" size="sm" onClick={() => setUseRecovery(!useRecovery)}>
              {useRecovery ? 'Use a code from the app' : 'Use a recovery code'}
            </Anchor>
            {expired ? (
              <Anchor component="button" type="button" size="sm" onClick={() => setChallenge(undefined)}>
                Log in again
              </Anchor>
            ) : null}
          </Group>
        </Stack>
      </form>
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Title order={2} size="h3">
          Log in
        </Title>
        <TextInput name="email" type="email" label="Email" autoComplete="username" required error={error?.field('email')} />
        <PasswordInput name="password" label="Password" autoComplete="current-password" required error={error?.field('password')} />
        <ErrorMessage error={login.error} shownFields={['email', 'password']} />
        <Button type="submit" loading={login.isPending}>
          Log in
        </Button>
        <Group justify="space-between">
          <Anchor component={Link} to="/forgot-password" size="sm">
            Forgot your password?
          </Anchor>
          <Anchor component={Link} to="/signup" size="sm">
            Create an account
          </Anchor>
        </Group>
      </Stack>
    </form>
  );
}
