import { Autocomplete, Button, Checkbox, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { parseValue } from './DataEditor.tsx';

type Row = { id: number; key: string; value: string };
let nextId = 1;
const emptyRow = (): Row => ({ id: nextId++, key: '', value: '' });

/**
 * "Add contact": an address, whether it is subscribed, and any data fields (the project's known
 * keys offered as you type). POST /contacts upserts by address: an address that is already a
 * contact is updated, and the page it opens says so.
 */
export function AddContactButton() {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [opened, modal] = useDisclosure(false);
  const [rows, setRows] = useState<Row[]>([emptyRow()]);
  const [subscribed, setSubscribed] = useState(true);
  const fields = useQuery({ queryKey: ['contacts', project.id, 'fields'], queryFn: () => call(api.GET('/contacts/fields')), staleTime: 60_000, enabled: opened });
  const known = (fields.data?.data ?? []).filter((f) => !f.standard).map((f) => f.name);
  const create = useMutation({
    mutationFn: (body: { email: string; subscribed: boolean; data: Record<string, unknown> }) => call(api.POST('/contacts', { body })),
    onSuccess: async (contact) => {
      await queryClient.invalidateQueries({ queryKey: ['contacts', project.id] });
      modal.close();
      navigate(projectPath(project.id, 'contacts', contact.id), { state: { added: contact._meta.isNew ? 'created' : 'updated' } });
    },
  });
  function open() {
    create.reset();
    setRows([emptyRow()]);
    setSubscribed(true);
    modal.open();
  }
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = Object.fromEntries(rows.filter((r) => r.key.trim()).map((r) => [r.key.trim(), parseValue(r.value)]));
    create.mutate({ email: String(new FormData(event.currentTarget).get('email')).trim(), subscribed, data });
  }
  const setRow = (id: number, part: Partial<Row>) => setRows((current) => current.map((r) => (r.id === id ? { ...r, ...part } : r)));
  const error = asApiError(create.error);
  return (
    <>
      <Button onClick={open}>Add contact</Button>
      <Modal opened={opened} onClose={modal.close} title="Add a contact" centered size="lg">
        <form onSubmit={submit} noValidate aria-label="Add a contact">
          <Stack>
            <TextInput name="email" type="email" label="Email address" placeholder="ada@example.com" required data-autofocus error={error?.field('email')} />
            <Checkbox
              label="Subscribed to marketing email"
              description="Transactional email is sent either way."
              checked={subscribed}
              onChange={(e) => setSubscribed(e.currentTarget.checked)}
            />
            <Stack gap="xs" role="group" aria-labelledby="add-contact-data">
              <Text size="sm" fw={500} id="add-contact-data">
                Data
              </Text>
              <Text size="xs" c="dimmed">
                Templates read each field as {'{{ data.field }}'}. Numbers, true/false and JSON are stored typed.
              </Text>
              {rows.map((row, i) => (
                <Group key={row.id} gap="xs" align="flex-start" wrap="nowrap">
                  <Autocomplete
                    aria-label={`Field ${i + 1}`}
                    placeholder="firstName"
                    data={known}
                    value={row.key}
                    onChange={(key) => setRow(row.id, { key })}
                    flex={1}
                    error={error?.field(`data.${row.key.trim()}`)}
                  />
                  <TextInput
                    aria-label={`Value of field ${i + 1}`}
                    placeholder="Ada"
                    value={row.value}
                    onChange={(e) => setRow(row.id, { value: e.currentTarget.value })}
                    flex={2}
                  />
                  <Button variant="subtle" color="red" aria-label={`Remove field ${i + 1}`} onClick={() => setRows((current) => current.filter((r) => r.id !== row.id))}>
                    Remove
                  </Button>
                </Group>
              ))}
              <Group>
                <Button variant="default" size="xs" onClick={() => setRows((current) => [...current, emptyRow()])}>
                  Add a field
                </Button>
              </Group>
            </Stack>
            <ErrorMessage error={create.error} shownFields={['email']} />
            <Group justify="flex-end">
              <Button variant="default" onClick={modal.close}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Add contact
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
