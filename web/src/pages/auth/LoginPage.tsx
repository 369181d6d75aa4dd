import { Anchor, Button, Group, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
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
  const login = useMutation({
    mutationFn: (body: { email: string; password: string }) => call(api.POST('/auth/login', { body })),
    onSuccess: async () => {
      await queryClient.invalidateQueries();
      navigate(safeNext(params.get('next')), { replace: true });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    login.mutate({ email: String(form.get('email')), password: String(form.get('password')) });
  }
  const error = asApiError(login.error);
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
