import { Alert, Anchor, Button, Group, Modal, Paper, Stack, Switch, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { EndpointForm } from './EndpointForm.tsx';
import { MessageLog } from './MessageLog.tsx';
import { ReplayWindow } from './ReplayWindow.tsx';
import { SecretModal } from './SecretModal.tsx';
import { EventBadges } from './WebhooksPage.tsx';
import { type Endpoint, type EndpointChange, fetchEndpoint, mayChangeWebhooks, time, webhookKeys } from './webhooks.ts';

function ConfirmModal(props: {
  opened: boolean;
  title: string;
  children: React.ReactNode;
  confirm: string;
  error: unknown;
  pending: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title} centered>
      <Stack>
        <Text size="sm">{props.children}</Text>
        <ErrorMessage error={props.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button color="red" onClick={props.onConfirm} loading={props.pending}>
            {props.confirm}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function EndpointDetails({ endpoint }: { endpoint: Endpoint }) {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const mayChange = mayChangeWebhooks(project);
  const [editing, edit] = useDisclosure(false);
  const [rotating, rotateDialog] = useDisclosure(false);
  const [deleting, deleteDialog] = useDisclosure(false);
  const [secret, setSecret] = useState<string>();
  const path = { params: { path: { id: endpoint.id } } };
  const refresh = () => queryClient.invalidateQueries({ queryKey: webhookKeys.list(project.id) });
  const update = useMutation({
    mutationFn: (body: EndpointChange) => call(api.PATCH('/webhook-endpoints/{id}', { ...path, body })),
    onSuccess: async (updated) => {
      queryClient.setQueryData(webhookKeys.one(project.id, endpoint.id), updated);
      edit.close();
      await refresh();
    },
  });
  const rotate = useMutation({
    mutationFn: () => call(api.POST('/webhook-endpoints/{id}/rotate-secret', path)),
    onSuccess: (rotated) => {
      rotateDialog.close();
      setSecret(rotated.secret);
    },
  });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/webhook-endpoints/{id}', path)),
    onSuccess: async () => {
      await refresh();
      navigate(projectPath(project.id, 'webhooks'));
    },
  });

  return (
    <>
      <PageHeader
        title="Webhook endpoint"
        actions={
          <>
            <Button variant="default" onClick={() => (update.reset(), edit.open())} disabled={!mayChange}>
              Edit
            </Button>
            <Button variant="default" onClick={() => (rotate.reset(), rotateDialog.open())} disabled={!mayChange}>
              Rotate secret
            </Button>
            <Button variant="outline" color="red" onClick={() => (remove.reset(), deleteDialog.open())} disabled={!mayChange}>
              Delete
            </Button>
          </>
        }
      />
      {!mayChange && (
        <Alert color="gray" title="Read only">
          Your role ({project.role}) can read this endpoint and its log. An owner or admin edits, disables, replays, rotates the secret and deletes it.
        </Alert>
      )}
      <Paper withBorder p="md" radius="md" component="section" aria-label="Endpoint settings">
        <Stack gap="xs">
          <Text fw={600} ff="monospace" style={{ wordBreak: 'break-all' }}>
            {endpoint.url}
          </Text>
          {endpoint.description && <Text size="sm">{endpoint.description}</Text>}
          <EventBadges events={endpoint.events} />
          <Switch
            mt="xs"
            label="Enabled"
            description={endpoint.enabled ? 'Events are delivered as they are recorded.' : 'Nothing is sent; messages wait and go out when it is enabled again.'}
            checked={endpoint.enabled}
            disabled={!mayChange || update.isPending}
            onChange={(event) => update.mutate({ enabled: event.currentTarget.checked })}
          />
          {!editing && <ErrorMessage error={update.error} />}
          <Text size="xs" c="dimmed">
            Added {time(endpoint.createdAt)} · changed {time(endpoint.updatedAt)}
          </Text>
        </Stack>
      </Paper>
      <ReplayWindow endpointId={endpoint.id} disabled={!mayChange} />
      <MessageLog endpointId={endpoint.id} mayReplay={mayChange} />

      <Modal opened={editing} onClose={edit.close} title="Edit the endpoint" centered size="lg">
        <EndpointForm
          initial={{ url: endpoint.url, events: endpoint.events, description: endpoint.description ?? undefined }}
          submitLabel="Save changes"
          pending={update.isPending}
          error={update.error}
          onSubmit={(input) => update.mutate({ ...input, description: input.description ?? null })}
          onCancel={edit.close}
        />
      </Modal>
      <ConfirmModal
        opened={rotating}
        title="Rotate the signing secret?"
        confirm="Rotate secret"
        error={rotate.error}
        pending={rotate.isPending}
        onConfirm={() => rotate.mutate()}
        onClose={rotateDialog.close}
      >
        A new secret is made and shown once. For 24 hours the old secret keeps signing beside it (two v1 signatures per message), so you can deploy the new one without losing a
        message.
      </ConfirmModal>
      <ConfirmModal
        opened={deleting}
        title="Delete this endpoint?"
        confirm="Delete endpoint"
        error={remove.error}
        pending={remove.isPending}
        onConfirm={() => remove.mutate()}
        onClose={deleteDialog.close}
      >
        {endpoint.url} stops receiving events at once, and its message log is deleted with it.
      </ConfirmModal>
      <SecretModal secret={secret} title="Secret rotated" note="The previous secret keeps signing for 24 hours." onClose={() => setSecret(undefined)} />
    </>
  );
}

export function Component() {
  const project = useProject();
  const { endpointId = '' } = useParams();
  const endpoint = useQuery({ queryKey: webhookKeys.one(project.id, endpointId), queryFn: () => fetchEndpoint(endpointId) });
  return (
    <Stack maw={1100}>
      <Anchor component={Link} to={projectPath(project.id, 'webhooks')} size="sm">
        ← All endpoints
      </Anchor>
      {endpoint.isPending && <Loading rows={4} label="Loading the endpoint" />}
      {endpoint.isError && <LoadError error={endpoint.error} what="the endpoint" retry={() => endpoint.refetch()} />}
      {endpoint.data && <EndpointDetails endpoint={endpoint.data} />}
    </Stack>
  );
}
