import { Anchor, Button, Group, Modal, Progress, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';

function FieldDetails({ field }: { field: string }) {
  const project = useProject();
  const name = field;
  const values = useQuery({
    queryKey: ['field-values', project.id, name],
    queryFn: () => call(api.GET('/contacts/fields/{field}/values', { params: { path: { field: name } } })),
  });
  const usage = useQuery({
    queryKey: ['field-usage', project.id, name],
    queryFn: () => call(api.GET('/contacts/fields/{field}/usage', { params: { path: { field: name } } })),
  });
  const users = usage.data
    ? [...usage.data.segments.map((s) => `segment ${s.name}`), ...usage.data.campaigns.map((c) => `campaign ${c.name}`), ...usage.data.workflows.map((w) => `workflow ${w.name}`)]
    : [];
  return (
    <Stack gap={4} py="xs">
      {values.isError && <LoadError error={values.error} what="the values" />}
      {values.data && (
        <Text size="sm">
          <strong>Values:</strong> {values.data.values.length === 0 ? 'none' : values.data.values.map(String).join(', ')}
        </Text>
      )}
      {usage.isError && <LoadError error={usage.error} what="the usage" />}
      {usage.data && (
        <Text size="sm">
          <strong>Used by:</strong> {users.length === 0 ? 'nothing' : users.join(', ')}
        </Text>
      )}
      {(values.isPending || usage.isPending) && <Loading rows={1} label="Loading values and usage" />}
    </Stack>
  );
}

export function Component() {
  const project = useProject();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<string>();
  const [deleting, setDeleting] = useState<string>();
  const fields = useQuery({ queryKey: ['fields', project.id], queryFn: async () => (await call(api.GET('/contacts/fields'))).data });
  const remove = useMutation({
    mutationFn: (field: string) => call(api.DELETE('/contacts/fields/{field}', { params: { path: { field } } })),
    onSuccess: () => {
      setDeleting(undefined);
      queryClient.invalidateQueries({ queryKey: ['fields', project.id] });
      queryClient.invalidateQueries({ queryKey: ['contacts', project.id] });
    },
  });
  const custom = fields.data?.filter((f) => !f.standard) ?? [];

  return (
    <Stack maw={1000}>
      <Anchor component={Link} to={projectPath(project.id, 'contacts')} size="sm">
        ← All contacts
      </Anchor>
      <PageHeader title="Contact fields" description="Standard fields and the custom data keys your contacts carry, with their inferred type and how many contacts have a value." />
      {fields.isPending && <Loading rows={5} label="Loading fields" />}
      {fields.isError && <LoadError error={fields.error} what="the fields" retry={() => fields.refetch()} />}
      {fields.data && (
        <Table.ScrollContainer minWidth={560}>
          <Table aria-label="Contact fields">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Field</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Coverage</Table.Th>
                <Table.Th>
                  <span className="mantine-visually-hidden">Actions</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {fields.data.map((field) => (
                <Fragment key={field.name}>
                  <Table.Tr>
                    <Table.Td ff="monospace">{field.standard ? field.name : `data.${field.name}`}</Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        {field.type}
                        {field.standard && <StatusBadge tone="info">standard</StatusBadge>}
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Progress value={field.coverage} w={80} aria-label={`Coverage of ${field.name}`} />
                        <Text size="sm">{field.coverage.toFixed(0)}%</Text>
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      {!field.standard && (
                        <Group gap={4} justify="flex-end" wrap="nowrap">
                          <Button
                            size="compact-xs"
                            variant="default"
                            onClick={() => setOpen(open === field.name ? undefined : field.name)}
                            aria-expanded={open === field.name}
                            aria-label={`Values and usage of ${field.name}`}
                          >
                            Values and usage
                          </Button>
                          <Button size="compact-xs" variant="subtle" color="red" onClick={() => setDeleting(field.name)} aria-label={`Delete ${field.name}`}>
                            Delete
                          </Button>
                        </Group>
                      )}
                    </Table.Td>
                  </Table.Tr>
                  {open === field.name && (
                    <Table.Tr>
                      <Table.Td colSpan={4}>
                        <FieldDetails field={field.name} />
                      </Table.Td>
                    </Table.Tr>
                  )}
                </Fragment>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {fields.data && custom.length === 0 && <EmptyState title="No custom field yet">Data keys you track, send or import appear here.</EmptyState>}
      <Modal opened={Boolean(deleting)} onClose={() => setDeleting(undefined)} title={`Delete the field ${deleting}?`} centered>
        <Stack>
          <Text size="sm">The key is removed from every contact. Segments, campaigns and workflows that use it stop matching on it.</Text>
          <ErrorMessage error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(undefined)}>
              Cancel
            </Button>
            <Button color="red" onClick={() => deleting && remove.mutate(deleting)} loading={remove.isPending}>
              Delete field
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
