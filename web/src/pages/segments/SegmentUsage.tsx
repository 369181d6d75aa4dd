import { Anchor, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';

const HISTORY = 25;
const fetchEvents = (name: string) => call(api.GET('/events', { params: { query: { name, limit: HISTORY } } }));
type MembershipEvent = Awaited<ReturnType<typeof fetchEvents>>['data'][number] & { entered: boolean };

function Links({ label, items }: { label: string; items: { id: string; name: string; href: string; note?: string }[] }) {
  if (items.length === 0) return null;
  return (
    <div>
      <Text size="sm" fw={600}>
        {label}
      </Text>
      <ul aria-label={label} style={{ margin: 0, paddingLeft: '1.25rem' }}>
        {items.map((item) => (
          <li key={item.id}>
            <Anchor component={Link} to={item.href} size="sm">
              {item.name}
            </Anchor>
            {item.note && (
              <Text span size="sm" c="dimmed">
                {' '}
                · {item.note}
              </Text>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Who entered and left a tracked segment, newest first (its `segment.<slug>.entry` / `.exit` events). */
function MembershipHistory({ entry, exit }: { entry: string; exit: string }) {
  const project = useProject();
  const history = useQuery({
    queryKey: ['segments', project.id, 'history', entry, exit],
    queryFn: async () => {
      const [entries, exits] = await Promise.all([fetchEvents(entry), fetchEvents(exit)]);
      const all: MembershipEvent[] = [...entries.data.map((e) => ({ ...e, entered: true })), ...exits.data.map((e) => ({ ...e, entered: false }))];
      return all.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, HISTORY);
    },
  });
  const columns: Column<MembershipEvent>[] = [
    { key: 'when', header: 'When', cell: (e) => <time dateTime={e.createdAt}>{new Date(e.createdAt).toLocaleString()}</time> },
    {
      key: 'contact',
      header: 'Contact',
      rowHeader: true,
      cell: (e) => (
        <Anchor component={Link} to={projectPath(project.id, 'contacts', e.contactId)} size="sm" style={{ wordBreak: 'break-all' }}>
          {e.email}
        </Anchor>
      ),
    },
    { key: 'change', header: 'Change', cell: (e) => <StatusBadge tone={e.entered ? 'good' : 'neutral'}>{e.entered ? 'Entered' : 'Left'}</StatusBadge> },
  ];
  return (
    <Stack gap="xs">
      <Text size="sm" fw={600}>
        Entries and exits
      </Text>
      {history.isPending && <Loading rows={2} label="Loading the membership history" />}
      {history.isError && <LoadError error={history.error} what="the membership history" retry={() => history.refetch()} />}
      {history.data?.length === 0 && <Text size="sm">No one has entered or left yet. Changes are recorded each time membership is computed.</Text>}
      {!!history.data?.length && <DataTable label="Entries and exits" rows={history.data} rowKey={(e) => e.id} columns={columns} minWidth={480} />}
    </Stack>
  );
}

/** What uses the segment (GET /segments/{id}/usage), and for a tracked one its entry and exit history. */
export function SegmentUsage({ segmentId }: { segmentId: string }) {
  const project = useProject();
  const usage = useQuery({
    queryKey: ['segments', project.id, 'usage', segmentId],
    queryFn: () => call(api.GET('/segments/{id}/usage', { params: { path: { id: segmentId } } })),
  });
  const u = usage.data;
  const unused = u && u.campaigns.length + u.segments.length + u.workflows.length === 0;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="usage-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="usage-title">
          Used by
        </Title>
        {usage.isPending && <Loading rows={2} label="Loading what uses this segment" />}
        {usage.isError && <LoadError error={usage.error} what="what uses this segment" retry={() => usage.refetch()} />}
        {unused && <Text size="sm">No campaign, segment or workflow uses this segment.</Text>}
        {u && (
          <>
            <Links label="Campaigns" items={u.campaigns.map((c) => ({ id: c.id, name: c.name, href: projectPath(project.id, 'campaigns', c.id), note: c.status.toLowerCase() }))} />
            <Links label="Segments built on it" items={u.segments.map((s) => ({ id: s.id, name: s.name, href: projectPath(project.id, 'segments', s.id) }))} />
            <Links
              label="Workflows it starts"
              items={u.workflows.map((w) => ({ id: w.id, name: w.name, href: projectPath(project.id, 'workflows', w.id), note: `on ${w.eventName}${w.enabled ? '' : ' (off)'}` }))}
            />
            {u.membershipEvents && <MembershipHistory entry={u.membershipEvents.entry} exit={u.membershipEvents.exit} />}
          </>
        )}
      </Stack>
    </Paper>
  );
}
