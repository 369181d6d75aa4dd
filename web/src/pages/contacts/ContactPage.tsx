import { Alert, Anchor, Button, Group, Modal, Paper, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { ContactEmails } from './ContactEmails.tsx';
import { ContactEvents } from './ContactEvents.tsx';
import { ContactExecutions } from './ContactExecutions.tsx';
import { ContactSegments } from './ContactSegments.tsx';
import { fetchContact } from './contact.ts';
import { DataEditor } from './DataEditor.tsx';

export function Component() {
  const project = useProject();
  const { contactId = '' } = useParams();
  const navigate = useNavigate();
  // Set by "Add contact" (AddContactButton) when it opens this page.
  const added = (useLocation().state as { added?: 'created' | 'updated' } | null)?.added;
  const queryClient = useQueryClient();
  const key = ['contact', project.id, contactId];
  const contact = useQuery({ queryKey: key, queryFn: () => fetchContact(contactId) });
  const update = useMutation({
    mutationFn: (body: { email?: string; subscribed?: boolean; data?: Record<string, unknown> }) =>
      call(api.PATCH('/contacts/{id}', { params: { path: { id: contactId } }, body })),
    onSuccess: (updated) => {
      queryClient.setQueryData(key, updated);
      queryClient.invalidateQueries({ queryKey: ['contacts', project.id] });
      queryClient.invalidateQueries({ queryKey: ['contact-events', project.id, contactId] });
      queryClient.invalidateQueries({ queryKey: ['contact-segments', project.id, contactId] });
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
      {added && (
        <Alert color={added === 'created' ? 'teal' : 'blue'} variant="light" role="status" p="xs">
          {added === 'created' ? 'Contact added.' : 'This address was already a contact: its subscription and the data you entered were saved on it.'}
        </Alert>
      )}
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
      <ContactSegments contactId={c.id} />
      <ContactExecutions contactId={c.id} />
      <ContactEmails contactId={c.id} />
      <ContactEvents contactId={c.id} />
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
