import { Paper, Text, Timeline, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { EventFields } from './EventFields.tsx';

/** The contact's latest events, newest first, each with its data as labelled fields. */
export function ContactEvents({ contactId }: { contactId: string }) {
  const project = useProject();
  const events = useQuery({
    queryKey: ['contact-events', project.id, contactId],
    queryFn: () => call(api.GET('/events/contact/{contactId}', { params: { path: { contactId }, query: { limit: 100 } } })),
  });
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="events-title">
      <Title order={2} size="h4" id="events-title" mb="sm">
        Events
      </Title>
      {events.isPending && <Loading rows={3} label="Loading events" />}
      {events.isError && <LoadError error={events.error} what="the events" retry={() => events.refetch()} />}
      {events.data?.data.length === 0 && <Text size="sm">No event yet.</Text>}
      {events.data && events.data.data.length > 0 && (
        <Timeline bulletSize={14} lineWidth={2} aria-label="Events, newest first">
          {events.data.data.map((event) => (
            <Timeline.Item key={event.id} title={event.name}>
              <Text size="xs" c="dimmed">
                <time dateTime={event.createdAt}>{new Date(event.createdAt).toLocaleString()}</time>
              </Text>
              <EventFields projectId={project.id} data={event.data} />
            </Timeline.Item>
          ))}
        </Timeline>
      )}
    </Paper>
  );
}
