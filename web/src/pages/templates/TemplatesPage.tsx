import { Anchor, Button, Group, SegmentedControl, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { TEMPLATE_TYPES, type TemplateType, TYPE_LABELS, templateKeys } from './templates.ts';

const PAGE_SIZE = 25;
type TypeFilter = 'all' | TemplateType;

export function Component() {
  const project = useProject();
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search.trim(), 300);
  const [type, setType] = useState<TypeFilter>('all');
  const [page, setPage] = useState(1);
  const filters = { search: debouncedSearch, type, page };
  const templates = useQuery({
    queryKey: templateKeys.list(project.id, filters),
    queryFn: () =>
      call(
        api.GET('/templates', {
          params: {
            query: { page, pageSize: PAGE_SIZE, search: debouncedSearch || undefined, type: type === 'all' ? undefined : type, sort: 'updatedAt', dir: 'desc' },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const rows = templates.data?.data ?? [];
  const filtered = debouncedSearch !== '' || type !== 'all';
  const totalPages = templates.data?.totalPages ?? 0;

  return (
    <Stack maw={1200}>
      <PageHeader
        title="Templates"
        description={
          templates.data
            ? `${templates.data.total.toLocaleString()} template${templates.data.total === 1 ? '' : 's'}${filtered ? (templates.data.total === 1 ? ' matches' : ' match') : ''}.`
            : 'Reusable emails with Liquid placeholders, for sends, campaigns and workflows.'
        }
        actions={
          <Button component={Link} to={projectPath(project.id, 'templates', 'new')}>
            New template
          </Button>
        }
      />
      <Group align="flex-end" gap="sm">
        <TextInput
          label="Search templates"
          description="Name, description or subject"
          type="search"
          placeholder="Welcome"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          flex={1}
          miw={200}
        />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="template-type-filter">
            Type
          </Text>
          <SegmentedControl
            aria-labelledby="template-type-filter"
            value={type}
            onChange={(value) => {
              setType(value as TypeFilter);
              setPage(1);
            }}
            data={[{ value: 'all', label: 'All' }, ...TEMPLATE_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))]}
          />
        </Stack>
      </Group>
      {templates.isError && <LoadError error={templates.error} what="the templates" retry={() => templates.refetch()} />}
      {templates.isPending && <Loading rows={6} label="Loading templates" />}
      {templates.data && rows.length === 0 && (
        <EmptyState title={filtered ? 'No template matches' : 'No template yet'}>
          {filtered ? 'Change the search or the type.' : 'Create one to send it with /v1/send, a campaign or a workflow.'}
        </EmptyState>
      )}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover aria-label="Templates" aria-busy={templates.isFetching}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Subject</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((template) => (
                <Table.Tr key={template.id}>
                  <Table.Td>
                    <Anchor component={Link} to={projectPath(project.id, 'templates', template.id)} fw={600}>
                      {template.name}
                    </Anchor>
                    {template.description && (
                      <Text size="xs" c="dimmed" lineClamp={1}>
                        {template.description}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" lineClamp={2} style={{ wordBreak: 'break-word' }}>
                      {template.subject}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge tone={template.type === 'MARKETING' ? 'info' : 'neutral'}>{TYPE_LABELS[template.type]}</StatusBadge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{new Date(template.updatedAt).toLocaleString()}</Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {templates.data && totalPages > 1 && (
        <Group justify="space-between">
          <Button variant="default" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
            Previous page
          </Button>
          <Text size="sm">
            Page {page} of {totalPages}
          </Text>
          <Button variant="default" disabled={page >= totalPages || templates.isPlaceholderData} onClick={() => setPage((p) => p + 1)}>
            Next page
          </Button>
        </Group>
      )}
    </Stack>
  );
}
