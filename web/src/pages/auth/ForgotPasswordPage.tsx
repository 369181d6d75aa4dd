import { Alert, Anchor, Button, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { usePageTitle } from '../../ui/usePageTitle.ts';

export function Component() {
  usePageTitle('Reset your password');
  const request = useMutation({
    mutationFn: (email: string) => call(api.POST('/auth/request-password-reset', { body: { email } })),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    request.mutate(String(new FormData(event.currentTarget).get('email')));
  }
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Title order={2} size="h3">
          Reset your password
        </Title>
        {request.isSuccess ? (
          <Alert color="teal" role="status" title="Check your inbox">
            If an account uses {request.variables}, a link to choose a new password is on its way. It works once, for one hour.
          </Alert>
        ) : (
          <>
            <Text size="sm">We will mail you a link to choose a new password.</Text>
            <TextInput name="email" type="email" label="Email" autoComplete="username" required error={asApiError(request.error)?.field('email')} />
            <ErrorMessage error={request.error} shownFields={['email']} />
            <Button type="submit" loading={request.isPending}>
              Send the link
            </Button>
          </>
        )}
        <Anchor component={Link} to="/login" size="sm">
          Back to log in
        </Anchor>
      </Stack>
    </form>
  );
}
