import { Alert, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, call } from '../../api/client.ts';
import { sessionKeys } from '../../api/session.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { Section } from './Section.tsx';

type Props = { action: 'reset' | 'delete'; opened: boolean; onClose: () => void };

/** Confirms an irreversible action by typing the project's exact name. */
function ConfirmByName({ action, opened, onClose }: Props) {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState('');
  const path = { params: { path: { id: project.id } } };
  const run = useMutation({
    mutationFn: async () => {
      if (action === 'reset') return call(api.POST('/users/@me/projects/{id}/reset', { ...path, body: { confirm: typed } }));
      return call(api.DELETE('/users/@me/projects/{id}', path));
    },
    onSuccess: async () => {
      if (action === 'delete') {
        await queryClient.invalidateQueries({ queryKey: sessionKeys.projects });
        navigate('/', { replace: true });
        return;
      }
      // Everything cached about the project's data is gone with it.
      await queryClient.invalidateQueries({ predicate: (q) => q.queryKey.includes(project.id) });
    },
  });
  const close = () => {
    setTyped('');
    run.reset();
    onClose();
  };
  const what = action === 'reset' ? 'Reset' : 'Delete';
  return (
    <Modal opened={opened} onClose={close} title={`${what} ${project.name}?`} centered>
      <Stack>
        <Text size="sm">
          {action === 'reset'
            ? 'Every contact, event, email, template, campaign, segment, workflow and webhook of this project is deleted. The project, its keys and its members stay.'
            : 'The project and all its data are deleted, its API keys stop working at once, and every member loses access.'}{' '}
          <strong>This cannot be undone.</strong>
        </Text>
        {run.isSuccess && action === 'reset' ? (
          <Alert color="teal" role="status">
            The project's data is deleted.
          </Alert>
        ) : (
          <form
            noValidate
            aria-label={`${what} the project`}
            onSubmit={(event) => {
              event.preventDefault();
              run.mutate();
            }}
          >
            <Stack>
              <TextInput label={`Type ${project.name} to confirm`} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} autoComplete="off" data-autofocus />
              <ErrorMessage error={run.error} />
              <Group justify="flex-end">
                <Button variant="default" onClick={close}>
                  Cancel
                </Button>
                <Button type="submit" color="red" disabled={typed !== project.name} loading={run.isPending}>
                  {what} project
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Stack>
    </Modal>
  );
}

/** Reset the data, or delete the project (OWNER). */
export function DangerZone() {
  const project = useProject();
  const [open, setOpen] = useState<'reset' | 'delete'>();
  const owner = project.role === 'OWNER';
  return (
    <Section id="danger" title="Danger zone" description={owner ? undefined : `Only an owner can reset or delete the project; your role is ${project.role}.`}>
      <Group justify="space-between" gap="xs">
        <Text size="sm" maw={560}>
          <strong>Reset the project:</strong> delete all its data (contacts, events, emails, templates, campaigns…), keep the project, its keys and members.
        </Text>
        <Button color="red" variant="outline" onClick={() => setOpen('reset')} disabled={!owner}>
          Reset project
        </Button>
      </Group>
      <Group justify="space-between" gap="xs">
        <Text size="sm" maw={560}>
          <strong>Delete the project:</strong> everything goes, and its keys stop working.
        </Text>
        <Button color="red" onClick={() => setOpen('delete')} disabled={!owner}>
          Delete project
        </Button>
      </Group>
      <ConfirmByName action="reset" opened={open === 'reset'} onClose={() => setOpen(undefined)} />
      <ConfirmByName action="delete" opened={open === 'delete'} onClose={() => setOpen(undefined)} />
    </Section>
  );
}
