import { Alert, Anchor, Button, PasswordInput, Stack, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { usePageTitle } from '../../ui/usePageTitle.ts';

/** The page the password-reset mail links to (`/reset-password?token=…`). */
export function Component() {
  usePageTitle('Choose a new password');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const reset = useMutation({
    mutationFn: (password: string) => call(api.POST('/auth/reset-password', { body: { token, password } })),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    reset.mutate(String(new FormData(event.currentTarget).get('password')));
  }
  if (reset.isSuccess) {
    return (
      <Stack>
        <Alert color="teal" role="status" title="Password changed">
          Your new password is set. Every other session of your account has ended.
        </Alert>
        <Button component={Link} to="/login">
          Log in
        </Button>
      </Stack>
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Title order={2} size="h3">
          Choose a new password
        </Title>
        {!token && (
          <Alert color="red" role="alert">
            This link has no token. Open the link from the email again, or ask for a new one.
          </Alert>
        )}
        <PasswordInput
          name="password"
          label="New password"
          description="At least 8 characters."
          autoComplete="new-password"
          required
          error={asApiError(reset.error)?.field('password')}
        />
        <ErrorMessage error={reset.error} shownFields={['password']} />
        <Button type="submit" loading={reset.isPending} disabled={!token}>
          Set new password
        </Button>
        <Anchor component={Link} to="/forgot-password" size="sm">
          Ask for a new link
        </Anchor>
      </Stack>
    </form>
  );
}
