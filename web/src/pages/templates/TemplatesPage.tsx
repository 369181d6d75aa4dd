import { Anchor, Button, Group, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { Pager } from '../../ui/Pager.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { TEMPLATE_TYPES, type Template, type TemplateType, TYPE_LABELS, templateKeys } from './templates.ts';

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
  const columns: Column<Template>[] = [
    {
      key: 'name',
      header: 'Name',
      cell: (template) => (
        <>
          <Anchor component={Link} to={projectPath(project.id, 'templates', template.id)} fw={600}>
            {template.name}
          </Anchor>
          {template.description && (
            <Text size="xs" c="dimmed" lineClamp={1}>
              {template.description}
            </Text>
          )}
        </>
      ),
    },
    {
      key: 'subject',
      header: 'Subject',
      cell: (template) => (
        <Text size="sm" lineClamp={2} style={{ wordBreak: 'break-word' }}>
          {template.subject}
        </Text>
      ),
    },
    { key: 'type', header: 'Type', cell: (template) => <StatusBadge tone={template.type === 'MARKETING' ? 'info' : 'neutral'}>{TYPE_LABELS[template.type]}</StatusBadge> },
    { key: 'updated', header: 'Updated', cell: (template) => <Text size="sm">{new Date(template.updatedAt).toLocaleString()}</Text> },
  ];

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
      {rows.length > 0 && <DataTable label="Templates" rows={rows} rowKey={(t) => t.id} columns={columns} minWidth={640} busy={templates.isFetching} />}
      {templates.data && <Pager page={page} totalPages={totalPages} onPage={setPage} waiting={templates.isPlaceholderData} />}
    </Stack>
  );
}
