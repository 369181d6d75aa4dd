import { Anchor, Button, Group, Modal, Paper, Stack, Switch, Text, TextInput, Timeline, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { ContactEmails } from './ContactEmails.tsx';
import { fetchContact } from './contact.ts';
import { DataEditor } from './DataEditor.tsx';

export function Component() {
  const project = useProject();
  const { contactId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const key = ['contact', project.id, contactId];
  const contact = useQuery({ queryKey: key, queryFn: () => fetchContact(contactId) });
  const events = useQuery({
    queryKey: ['contact-events', project.id, contactId],
    queryFn: () => call(api.GET('/events/contact/{contactId}', { params: { path: { contactId }, query: { limit: 100 } } })),
  });
  const update = useMutation({
    mutationFn: (body: { email?: string; subscribed?: boolean; data?: Record<string, unknown> }) =>
      call(api.PATCH('/contacts/{id}', { params: { path: { id: contactId } }, body })),
    onSuccess: (updated) => {
      queryClient.setQueryData(key, updated);
      queryClient.invalidateQueries({ queryKey: ['contacts', project.id] });
      queryClient.invalidateQueries({ queryKey: ['contact-events', project.id, contactId] });
    },
  });
  const [deleting, del] = useDisclosure(false);
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/contacts/{id}', { params: { path: { id: contactId } } })),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ['contacts', project.id] });
      navigate(projectPath(project.id, 'contacts'));
    },
  });

  if (contact.isPending) return <Loading rows={6} label="Loading the contact" />;
  if (contact.isError) return <LoadError error={contact.error} what="this contact" retry={() => contact.refetch()} />;
  const c = contact.data;

  function saveEmail(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    update.mutate({ email: String(new FormData(event.currentTarget).get('email')).trim() });
  }
  const emailError = update.variables?.email !== undefined ? update.error : null;

  return (
    <Stack maw={1000}>
      <Anchor component={Link} to={projectPath(project.id, 'contacts')} size="sm">
        ← All contacts
      </Anchor>
      <PageHeader
        title={c.email}
        description={`Created ${new Date(c.createdAt).toLocaleString()} · updated ${new Date(c.updatedAt).toLocaleString()}`}
        actions={
          <Button variant="outline" color="red" onClick={del.open}>
            Delete contact
          </Button>
        }
      />
      <Paper withBorder p="md" radius="md" component="section" aria-label="Address and subscription">
        <Stack>
          <form onSubmit={saveEmail} noValidate>
            <Group align="flex-start" gap="xs">
              <TextInput key={c.email} name="email" label="Email address" defaultValue={c.email} flex={1} miw={220} error={asApiError(emailError)?.field('email')} />
              <Button type="submit" variant="default" mt={25} loading={update.isPending && update.variables?.email !== undefined}>
                Save address
              </Button>
            </Group>
            <ErrorMessage error={emailError} shownFields={['email']} />
          </form>
          <Switch
            label="Subscribed to marketing email"
            description="Transactional email is sent either way."
            checked={c.subscribed}
            onChange={(e) => update.mutate({ subscribed: e.currentTarget.checked })}
            disabled={update.isPending}
          />
          {update.variables?.subscribed !== undefined && <ErrorMessage error={update.error} />}
        </Stack>
      </Paper>
      <DataEditor contact={c} update={update} />
      <ContactEmails contactId={c.id} />
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
                  {new Date(event.createdAt).toLocaleString()}
                </Text>
                {Object.keys(event.data).length > 0 && (
                  <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                    {JSON.stringify(event.data)}
                  </Text>
                )}
              </Timeline.Item>
            ))}
          </Timeline>
        )}
      </Paper>
      <Modal opened={deleting} onClose={del.close} title={`Delete ${c.email}?`} centered>
        <Stack>
          <Text size="sm">The contact, its data and its events are deleted. This cannot be undone.</Text>
          <ErrorMessage error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={del.close}>
              Cancel
            </Button>
            <Button color="red" onClick={() => remove.mutate()} loading={remove.isPending}>
              Delete contact
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
