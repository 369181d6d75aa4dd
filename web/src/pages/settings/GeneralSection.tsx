import { Button, Group, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { sessionKeys } from '../../api/session.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { Section } from './Section.tsx';
import { isManager } from './settings.ts';

/** The project's name (OWNER or ADMIN). */
export function GeneralSection() {
  const project = useProject();
  const queryClient = useQueryClient();
  const rename = useMutation({
    mutationFn: (name: string) => call(api.PATCH('/users/@me/projects/{id}', { params: { path: { id: project.id } }, body: { name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionKeys.projects }),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    rename.mutate(String(new FormData(event.currentTarget).get('name')).trim());
  }
  const may = isManager(project.role);
  return (
    <Section id="general" title="Project" description={`Created ${new Date(project.createdAt).toLocaleDateString()} · your role: ${project.role}`}>
      <form onSubmit={submit} noValidate aria-label="Rename the project">
        <Group align="flex-start" gap="xs">
          <TextInput
            name="name"
            label="Project name"
            defaultValue={project.name}
            key={project.name}
            required
            flex={1}
            miw={220}
            disabled={!may}
            error={asApiError(rename.error)?.field('name')}
          />
          <Button type="submit" mt={25} loading={rename.isPending} disabled={!may}>
            Save name
          </Button>
        </Group>
      </form>
      <ErrorMessage error={rename.error} shownFields={['name']} />
      {rename.isSuccess && (
        <Text size="sm" role="status">
          Saved.
        </Text>
      )}
      {!may && (
        <Text size="sm" c="dimmed">
          Only an owner or admin can rename the project.
        </Text>
      )}
    </Section>
  );
}
