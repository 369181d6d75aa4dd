import { Anchor, Button, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { sessionKeys, useMe } from '../../api/session.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { usePageTitle } from '../../ui/usePageTitle.ts';

export function Component() {
  usePageTitle('New project');
  const me = useMe();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (name: string) => call(api.POST('/users/@me/projects', { body: { name } })),
    onSuccess: async (project) => {
      await queryClient.invalidateQueries({ queryKey: sessionKeys.projects });
      navigate(`/p/${project.id}`);
    },
  });
  if (me.isError) return <Navigate to="/login?next=/new-project" replace />;
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate(String(new FormData(event.currentTarget).get('name')).trim());
  }
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Title order={2} size="h3">
          New project
        </Title>
        <Text size="sm">A project holds one product's contacts, templates, domains and API keys. You can invite your team to it.</Text>
        <TextInput name="name" label="Project name" placeholder="My app" required maxLength={100} error={asApiError(create.error)?.field('name')} />
        <ErrorMessage error={create.error} shownFields={['name']} />
        <Button type="submit" loading={create.isPending}>
          Create project
        </Button>
        <Anchor component={Link} to="/" size="sm">
          Back to my projects
        </Anchor>
      </Stack>
    </form>
  );
}
