import { Anchor, Button, Group, Stack, Tabs, Text, TextInput } from '@mantine/core';
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
import { type Campaign, type CampaignStatus, campaignKeys, STATUS_LABELS, STATUS_TONES, STATUSES } from './campaigns.ts';

const PAGE_SIZE = 25;
const AUDIENCE_LABELS = { ALL: 'All contacts', SEGMENT: 'A segment', FILTERED: 'A filter' } as const;

/** When a campaign went or goes out, in the viewer's zone. */
function when(campaign: Campaign): string {
  if (campaign.status === 'SCHEDULED' && campaign.scheduledFor) return `Scheduled for ${new Date(campaign.scheduledFor).toLocaleString()}`;
  if (campaign.sentAt) return `Sent ${new Date(campaign.sentAt).toLocaleString()}`;
  return `Edited ${new Date(campaign.updatedAt).toLocaleString()}`;
}

/** /p/{id}/campaigns: every campaign, by status, searchable by name, subject or sender. */
export function Component() {
  const project = useProject();
  const [status, setStatus] = useState<'all' | CampaignStatus>('all');
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [page, setPage] = useState(1);
  const filters = { status, search: debounced, page };
  const campaigns = useQuery({
    queryKey: campaignKeys.list(project.id, filters),
    queryFn: () =>
      call(
        api.GET('/campaigns', {
          params: { query: { page, pageSize: PAGE_SIZE, status: status === 'all' ? undefined : status, search: debounced || undefined, sort: 'updatedAt', dir: 'desc' } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const rows = campaigns.data?.data ?? [];
  const totalPages = campaigns.data?.totalPages ?? 0;
  const filtered = status !== 'all' || debounced !== '';
  const columns: Column<Campaign>[] = [
    {
      key: 'name',
      header: 'Name',
      rowHeader: true,
      cell: (c) => (
        <>
          <Anchor component={Link} to={projectPath(project.id, 'campaigns', c.id)} fw={600}>
            {c.name}
          </Anchor>
          <Text size="xs" c="dimmed" lineClamp={1} style={{ wordBreak: 'break-word' }}>
            {c.subject}
          </Text>
        </>
      ),
    },
    { key: 'status', header: 'Status', cell: (c) => <StatusBadge tone={STATUS_TONES[c.status]}>{STATUS_LABELS[c.status]}</StatusBadge> },
    { key: 'audience', header: 'Audience', cell: (c) => <Text size="sm">{AUDIENCE_LABELS[c.audienceType]}</Text> },
    {
      key: 'recipients',
      header: 'Recipients',
      cell: (c) => (
        <Text size="sm">
          {c.status === 'DRAFT' || c.status === 'SCHEDULED'
            ? `${c.totalRecipients.toLocaleString()} now`
            : `${c.sentCount.toLocaleString()} of ${c.totalRecipients.toLocaleString()} sent`}
        </Text>
      ),
    },
    { key: 'when', header: 'When', cell: (c) => <Text size="sm">{when(c)}</Text> },
  ];

  return (
    <Stack maw={1200}>
      <PageHeader
        title="Campaigns"
        description={
          campaigns.data
            ? `${campaigns.data.total.toLocaleString()} campaign${campaigns.data.total === 1 ? '' : 's'}${filtered ? ' match' : ''}.`
            : 'One email to many contacts, now or at a set time.'
        }
        actions={
          <Button component={Link} to={projectPath(project.id, 'campaigns', 'new')}>
            New campaign
          </Button>
        }
      />
      <Tabs
        value={status}
        onChange={(value) => {
          setStatus((value ?? 'all') as typeof status);
          setPage(1);
        }}
      >
        <Tabs.List aria-label="Campaign status">
          <Tabs.Tab value="all">All</Tabs.Tab>
          {STATUSES.map((s) => (
            <Tabs.Tab key={s} value={s}>
              {STATUS_LABELS[s]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Group>
        <TextInput
          label="Search campaigns"
          description="Name, subject or sender address"
          type="search"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          flex={1}
          miw={200}
        />
      </Group>
      {campaigns.isError && <LoadError error={campaigns.error} what="the campaigns" retry={() => campaigns.refetch()} />}
      {campaigns.isPending && <Loading rows={6} label="Loading campaigns" />}
      {campaigns.data && rows.length === 0 && (
        <EmptyState title={filtered ? 'No campaign matches' : 'No campaign yet'}>
          {filtered ? 'Change the search or the status.' : 'Write one, choose who gets it, and send it now or later.'}
        </EmptyState>
      )}
      {rows.length > 0 && <DataTable label="Campaigns" rows={rows} rowKey={(c) => c.id} columns={columns} minWidth={720} busy={campaigns.isFetching} />}
      <Pager page={page} totalPages={totalPages} onPage={setPage} waiting={campaigns.isPlaceholderData} />
    </Stack>
  );
}
