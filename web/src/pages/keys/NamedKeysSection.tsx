import { Alert, Button, Code, Group, NativeSelect, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { DataTable } from '../../ui/DataTable.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';

type Scope = 'full' | 'sending';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'Never');

/** Named secret keys with a scope (docs/security.md): created (shown once), listed, revoked. */
export function NamedKeysSection() {
  const project = useProject();
  const queryClient = useQueryClient();
  const [scope, setScope] = useState<Scope>('sending');
  const [created, setCreated] = useState<{ name: string; key: string } | undefined>();
  const path = { params: { path: { id: project.id } } };
  const keys = useQuery({
    queryKey: ['api-keys', project.id],
    queryFn: async () => (await call(api.GET('/users/@me/projects/{id}/api-keys', path))).data,
  });
  const create = useMutation({
    mutationFn: (body: { name: string; scope: Scope; senderDomains?: string[] }) => call(api.POST('/users/@me/projects/{id}/api-keys', { ...path, body })),
    onSuccess: async (key) => {
      setCreated({ name: key.name, key: key.key });
      await queryClient.invalidateQueries({ queryKey: ['api-keys', project.id] });
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) => call(api.DELETE('/users/@me/projects/{id}/api-keys/{keyId}', { params: { path: { id: project.id, keyId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys', project.id] }),
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const domains = String(data.get('senderDomains') ?? '')
      .split(/[\s,]+/)
      .map((d) => d.trim())
      .filter(Boolean);
    create.mutate({ name: String(data.get('name')).trim(), scope, ...(domains.length ? { senderDomains: domains } : {}) }, { onSuccess: () => form.reset() });
  }

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="named-keys-title">
      <Stack>
        <Title order={2} size="h4" id="named-keys-title">
          Named keys
        </Title>
        <Text size="sm" c="dimmed">
          A key per application. A sending key can only send, track and verify: it cannot read contacts or emails, delete anything or rotate keys. Revoking a key stops it at once.
        </Text>
        {created && (
          <Alert color="teal" role="status" title={`Key "${created.name}" created`}>
            <Stack gap="xs">
              <Text size="sm">Copy it now: it is not shown again.</Text>
              <Group gap="xs" wrap="nowrap">
                <Code flex={1} style={{ wordBreak: 'break-all' }} aria-label="New key value">
                  {created.key}
                </Code>
                <CopyButton value={created.key} label="Copy the new key" />
              </Group>
            </Stack>
          </Alert>
        )}
        <form onSubmit={submit} aria-label="Create a named key">
          <Group align="flex-end" wrap="wrap">
            <TextInput name="name" label="Name" placeholder="Checkout service" required maxLength={100} />
            <NativeSelect
              label="Scope"
              value={scope}
              onChange={(event) => setScope(event.currentTarget.value as Scope)}
              data={[
                { value: 'sending', label: 'Sending only' },
                { value: 'full', label: 'Full access' },
              ]}
            />
            <TextInput name="senderDomains" label="Sender domains (optional)" placeholder="example.com, mail.example.com" />
            <Button type="submit" loading={create.isPending}>
              Create key
            </Button>
          </Group>
        </form>
        <ErrorMessage error={create.error ?? revoke.error ?? keys.error} />
        {keys.data && keys.data.length > 0 && (
          <DataTable
            label="Named API keys"
            minWidth={600}
            rows={keys.data}
            rowKey={(key) => key.id}
            busy={keys.isFetching}
            columns={[
              { key: 'name', header: 'Name', rowHeader: true, cell: (key) => key.name },
              { key: 'scope', header: 'Scope', cell: (key) => (key.scope === 'sending' ? 'Sending only' : 'Full access') },
              { key: 'domains', header: 'Sender domains', cell: (key) => (key.senderDomains.length ? key.senderDomains.join(', ') : 'Any verified domain') },
              { key: 'start', header: 'Key', cell: (key) => <Code>{key.keyStart}…</Code> },
              { key: 'used', header: 'Last used', cell: (key) => when(key.lastUsedAt) },
              {
                key: 'actions',
                header: <span className="mantine-visually-hidden">Actions</span>,
                cell: (key) => (
                  <Button
                    size="compact-sm"
                    color="red"
                    variant="outline"
                    onClick={() => revoke.mutate(key.id)}
                    aria-label={`Revoke ${key.name}`}
                    loading={revoke.isPending && revoke.variables === key.id}
                  >
                    Revoke
                  </Button>
                ),
              },
            ]}
          />
        )}
      </Stack>
    </Paper>
  );
}
