import { Anchor, Button, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { usePageTitle } from '../../ui/usePageTitle.ts';

export function Component() {
  usePageTitle('Create an account');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signup = useMutation({
    mutationFn: (body: { email: string; password: string }) => call(api.POST('/auth/signup', { body })),
    onSuccess: async () => {
      await queryClient.invalidateQueries();
      navigate('/new-project', { replace: true });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    signup.mutate({ email: String(form.get('email')), password: String(form.get('password')) });
  }
  const error = asApiError(signup.error);
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Title order={2} size="h3">
          Create an account
        </Title>
        <TextInput name="email" type="email" label="Email" autoComplete="email" required error={error?.field('email')} />
        <PasswordInput name="password" label="Password" description="At least 8 characters." autoComplete="new-password" required error={error?.field('password')} />
        <ErrorMessage error={signup.error} shownFields={['email', 'password']} />
        <Button type="submit" loading={signup.isPending}>
          Create account
        </Button>
        <Text size="sm">
          Already have an account?{' '}
          <Anchor component={Link} to="/login">
            Log in
          </Anchor>
        </Text>
      </Stack>
    </form>
  );
}
