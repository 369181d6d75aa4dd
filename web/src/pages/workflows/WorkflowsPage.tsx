import { Alert, Anchor, Button, Group, Modal, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { DataTable } from '../../ui/DataTable.tsx';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { time, type Workflow, workflowKeys } from './workflows.ts';

/** A copy of a workflow: the same trigger and graph, disabled (step ids are new, so edges are mapped). */
async function duplicate(workflow: Workflow): Promise<Workflow> {
  const copy = await call(
    api.POST('/workflows', {
      body: { name: `${workflow.name} (copy)`, description: workflow.description, eventName: workflow.triggerConfig.eventName ?? 'manual', allowReentry: workflow.allowReentry },
    }),
  );
  const ids = new Map<string, string>([[workflow.steps.find((s) => s.type === 'TRIGGER')!.id, copy.steps[0]!.id]]);
  for (const step of workflow.steps) {
    if (step.type === 'TRIGGER') continue;
    const added = await call(api.POST('/workflows/{id}/steps', { params: { path: { id: copy.id } }, body: { type: step.type, name: step.name, config: step.config } }));
    ids.set(step.id, added.id);
  }
  for (const t of workflow.transitions) {
    await call(
      api.POST('/workflows/{id}/transitions', {
        params: { path: { id: copy.id } },
        body: { fromStepId: ids.get(t.fromStepId)!, toStepId: ids.get(t.toStepId)!, branch: t.branch },
      }),
    );
  }
  if (workflow.triggerType === 'MANUAL') await call(api.PATCH('/workflows/{id}', { params: { path: { id: copy.id } }, body: { triggerType: 'MANUAL' } }));
  return copy;
}

function deleteMessage(error: unknown): string | undefined {
  const e = asApiError(error);
  if (!e) return undefined;
  if (e.status === 409)
    return `Contacts are still in this workflow (${(e.details as { active?: number } | undefined)?.active ?? 'some'} running or waiting). Cancel them from its Executions tab, or wait for them to finish, then delete it.`;
  return e.message;
}

export function Component() {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [creating, create] = useDisclosure(false);
  const [name, setName] = useState('');
  const [eventName, setEventName] = useState('');
  const [deleting, setDeleting] = useState<Workflow>();
  const list = useQuery({ queryKey: workflowKeys.list(project.id), queryFn: async () => (await call(api.GET('/workflows'))).data });
  const stats = useQuery({ queryKey: [...workflowKeys.list(project.id), 'stats'], queryFn: async () => (await call(api.GET('/workflows/stats'))).data });
  const refresh = () => queryClient.invalidateQueries({ queryKey: workflowKeys.list(project.id) });
  const add = useMutation({
    mutationFn: () => call(api.POST('/workflows', { body: { name, eventName } })),
    onSuccess: async (created) => {
      create.close();
      await refresh();
      navigate(projectPath(project.id, 'workflows', created.id));
    },
  });
  const copy = useMutation({ mutationFn: duplicate, onSuccess: refresh });
  const toggle = useMutation({
    mutationFn: (w: Workflow) => call(api.PATCH('/workflows/{id}', { params: { path: { id: w.id } }, body: { enabled: !w.enabled } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (w: Workflow) => call(api.DELETE('/workflows/{id}', { params: { path: { id: w.id } } })),
    onSuccess: async () => {
      setDeleting(undefined);
      await refresh();
    },
  });
  const counts = new Map((stats.data ?? []).map((s) => [s.workflowId, s]));

  return (
    <Stack maw={1200}>
      <PageHeader
        title="Workflows"
        description="Journeys a contact walks when an event is tracked: emails, delays, waits, conditions, webhooks and contact updates. Edit a live workflow safely: contacts already in it finish on the version they started."
        actions={<Button onClick={create.open}>New workflow</Button>}
      />
      {list.isPending && <Loading rows={3} label="Loading workflows" />}
      {list.isError && <LoadError error={list.error} what="the workflows" retry={() => list.refetch()} />}
      {list.data?.length === 0 && <EmptyState title="No workflow yet">Create one, then draw its steps on the canvas.</EmptyState>}
      {copy.isError && <ErrorMessage error={copy.error} />}
      {!!list.data?.length && (
        <DataTable
          label="Workflows"
          minWidth={980}
          rows={list.data}
          rowKey={(w) => w.id}
          busy={list.isFetching}
          striped={false}
          columns={[
            {
              key: 'name',
              header: 'Name',
              rowHeader: true,
              cell: (w) => (
                <Anchor component={Link} to={projectPath(project.id, 'workflows', w.id)} fw={600}>
                  {w.name}
                </Anchor>
              ),
            },
            {
              key: 'trigger',
              header: 'Trigger',
              cell: (w) => (
                <Text span ff="monospace" size="sm">
                  {w.triggerType === 'EVENT' ? w.triggerConfig.eventName : 'Manual (API)'}
                </Text>
              ),
            },
            {
              key: 'enabled',
              header: 'Enabled',
              cell: (w) => (
                <Switch checked={w.enabled} onChange={() => toggle.mutate(w)} aria-label={`${w.enabled ? 'Disable' : 'Enable'} ${w.name}`} label={w.enabled ? 'On' : 'Off'} />
              ),
            },
            { key: 'active', header: 'Running / waiting', cell: (w) => `${counts.get(w.id)?.running ?? 0} / ${counts.get(w.id)?.waiting ?? 0}` },
            {
              key: 'ended',
              header: 'Completed / exited / failed (7 days)',
              cell: (w) => `${counts.get(w.id)?.completed ?? 0} / ${counts.get(w.id)?.exited ?? 0} / ${counts.get(w.id)?.failed ?? 0}`,
            },
            { key: 'edited', header: 'Last edited', cell: (w) => time(w.updatedAt) },
            {
              key: 'actions',
              header: 'Actions',
              cell: (w) => (
                <Group gap="xs" wrap="nowrap">
                  <Button size="xs" variant="default" onClick={() => copy.mutate(w)} loading={copy.isPending && copy.variables?.id === w.id} aria-label={`Duplicate ${w.name}`}>
                    Duplicate
                  </Button>
                  <Button
                    size="xs"
                    variant="default"
                    color="red"
                    onClick={() => {
                      remove.reset();
                      setDeleting(w);
                    }}
                    aria-label={`Delete ${w.name}`}
                  >
                    Delete
                  </Button>
                </Group>
              ),
            },
          ]}
        />
      )}
      <Modal opened={creating} onClose={create.close} title="New workflow" centered>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate();
          }}
        >
          <Stack>
            <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={asApiError(add.error)?.field('name')} />
            <TextInput
              label="Trigger event"
              description="Tracking this event for a contact starts the workflow for them (once it is enabled)."
              required
              value={eventName}
              onChange={(e) => setEventName(e.currentTarget.value)}
              error={asApiError(add.error)?.field('eventName')}
            />
            {add.isError && <ErrorMessage error={add.error} shownFields={['name', 'eventName']} />}
            <Group justify="flex-end">
              <Button variant="default" onClick={create.close}>
                Cancel
              </Button>
              <Button type="submit" loading={add.isPending}>
                Create workflow
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
      <Modal opened={!!deleting} onClose={() => setDeleting(undefined)} title="Delete workflow" centered>
        <Stack>
          <Text>Delete “{deleting?.name}” with its steps, versions and execution history?</Text>
          {remove.isError && (
            <Alert color="red" title="Not deleted" role="alert">
              {deleteMessage(remove.error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(undefined)}>
              Keep it
            </Button>
            <Button color="red.9" onClick={() => deleting && remove.mutate(deleting)} loading={remove.isPending}>
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
