import { Alert, Anchor, Badge, Button, Group, Modal, Paper, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { EndpointForm } from './EndpointForm.tsx';
import { SecretModal } from './SecretModal.tsx';
import { type Endpoint, type EndpointInput, mayChangeWebhooks, webhookKeys } from './webhooks.ts';

export function EventBadges({ events }: { events: string[] }) {
  return (
    <Group gap={4}>
      {events.map((event) => (
        <Badge key={event} variant="outline" color="gray.8" tt="none" ff="monospace">
          {event}
        </Badge>
      ))}
    </Group>
  );
}

function EndpointRow({ endpoint }: { endpoint: Endpoint }) {
  const project = useProject();
  return (
    <Paper withBorder p="md" radius="md" component="li" aria-label={`Endpoint ${endpoint.url}`}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Anchor component={Link} to={projectPath(project.id, 'webhooks', endpoint.id)} fw={600} ff="monospace" style={{ wordBreak: 'break-all' }}>
            {endpoint.url}
          </Anchor>
          <StatusBadge tone={endpoint.enabled ? 'good' : 'neutral'}>{endpoint.enabled ? 'Enabled' : 'Disabled'}</StatusBadge>
        </Group>
        {endpoint.description && (
          <Text size="sm" c="dimmed">
            {endpoint.description}
          </Text>
        )}
        <EventBadges events={endpoint.events} />
      </Stack>
    </Paper>
  );
}

export function Component() {
  const project = useProject();
  const queryClient = useQueryClient();
  const mayChange = mayChangeWebhooks(project);
  const [adding, add] = useDisclosure(false);
  const [secret, setSecret] = useState<string>();
  const endpoints = useQuery({
    queryKey: webhookKeys.list(project.id),
    queryFn: async () => (await call(api.GET('/webhook-endpoints'))).data,
  });
  const create = useMutation({
    mutationFn: (input: EndpointInput) => call(api.POST('/webhook-endpoints', { body: input })),
    onSuccess: async (created) => {
      add.close();
      setSecret(created.secret);
      await queryClient.invalidateQueries({ queryKey: webhookKeys.list(project.id) });
    },
  });
  const openForm = () => {
    create.reset();
    add.open();
  };

  return (
    <Stack maw={1100}>
      <PageHeader
        title="Webhooks"
        description="Mailroom POSTs each event to your endpoints as it is recorded, signed with the endpoint's secret (Standard Webhooks), and retries failures for 3 days."
        actions={
          <Button onClick={openForm} disabled={!mayChange}>
            Add endpoint
          </Button>
        }
      />
      {!mayChange && (
        <Alert color="gray" title="Read only">
          Your role ({project.role}) can see endpoints and their message log. An owner or admin adds, changes, replays and deletes them.
        </Alert>
      )}
      {endpoints.isPending && <Loading rows={3} label="Loading endpoints" />}
      {endpoints.isError && <LoadError error={endpoints.error} what="the endpoints" retry={() => endpoints.refetch()} />}
      {endpoints.data?.length === 0 && (
        <EmptyState title="No endpoint yet">Add the URL of your server that should hear about bounces, opens, unsubscribes and your own events.</EmptyState>
      )}
      {!!endpoints.data?.length && (
        <Stack component="ul" gap="sm" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Endpoints">
          {endpoints.data.map((endpoint) => (
            <EndpointRow key={endpoint.id} endpoint={endpoint} />
          ))}
        </Stack>
      )}
      <Modal opened={adding} onClose={add.close} title="Add an endpoint" centered size="lg">
        <EndpointForm submitLabel="Create endpoint" pending={create.isPending} error={create.error} onSubmit={(input) => create.mutate(input)} onCancel={add.close} />
      </Modal>
      <SecretModal secret={secret} title="Endpoint added" onClose={() => setSecret(undefined)} />
    </Stack>
  );
}
