import { Button, Group, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import type { Contact } from './contact.ts';

type Update = UseMutationResult<Contact, Error, { data?: Record<string, unknown> }>;

/** A typed-in value: numbers, booleans and null as such; JSON objects and arrays; else the text. */
export function parseValue(text: string): unknown {
  const trimmed = text.trim();
  if (/^(-?\d+(\.\d+)?|true|false|null)$/.test(trimmed) || /^[[{]/.test(trimmed)) {
    try {
      return JSON.parse(trimmed);
    } catch {}
  }
  return text;
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** The contact's data: edit a value, add a key, delete a key (null deletes it: the API reference data rules). */
export function DataEditor({ contact, update }: { contact: Contact; update: Update }) {
  const [editing, setEditing] = useState<string>();
  const entries = Object.entries(contact.data);
  const dataError = update.variables?.data ? update.error : null;

  function save(event: FormEvent<HTMLFormElement>, key: string) {
    event.preventDefault();
    update.mutate({ data: { [key]: parseValue(String(new FormData(event.currentTarget).get('value'))) } }, { onSuccess: () => setEditing(undefined) });
  }
  function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const values = new FormData(form);
    const key = String(values.get('key')).trim();
    if (!key) return;
    update.mutate({ data: { [key]: parseValue(String(values.get('value'))) } }, { onSuccess: () => form.reset() });
  }

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="data-title">
      <Title order={2} size="h4" id="data-title" mb="sm">
        Data
      </Title>
      <Stack gap="sm">
        {entries.length === 0 && <Text size="sm">No data yet. Add a key below; templates read it as {'{{ data.key }}'}.</Text>}
        {entries.length > 0 && (
          <Table.ScrollContainer minWidth={420}>
            <Table aria-label="Contact data">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Value</Table.Th>
                  <Table.Th>
                    <span className="mantine-visually-hidden">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {entries.map(([key, value]) => (
                  <Table.Tr key={key}>
                    <Table.Td ff="monospace">{key}</Table.Td>
                    <Table.Td>
                      {editing === key ? (
                        <form onSubmit={(e) => save(e, key)} id={`edit-${key}`}>
                          <TextInput name="value" aria-label={`Value of ${key}`} defaultValue={shown(value)} autoFocus size="xs" />
                        </form>
                      ) : (
                        <Text size="sm" style={{ wordBreak: 'break-word' }}>
                          {shown(value)}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4} wrap="nowrap" justify="flex-end">
                        {/* Keyed: the Edit button must not become the Save (submit) button mid-click. */}
                        {editing === key ? (
                          <>
                            <Button key="save" size="compact-xs" type="submit" form={`edit-${key}`} loading={update.isPending} aria-label={`Save ${key}`}>
                              Save
                            </Button>
                            <Button key="cancel" size="compact-xs" variant="default" onClick={() => setEditing(undefined)}>
                              Cancel
                            </Button>
                          </>
                        ) : (
                          <>
                            <Button key="edit" size="compact-xs" variant="default" onClick={() => setEditing(key)} aria-label={`Edit ${key}`}>
                              Edit
                            </Button>
                            <Button size="compact-xs" variant="subtle" color="red" onClick={() => update.mutate({ data: { [key]: null } })} aria-label={`Delete ${key}`}>
                              Delete
                            </Button>
                          </>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        <form onSubmit={add} noValidate aria-label="Add a data key">
          <Group align="flex-end" gap="xs">
            <TextInput name="key" label="New key" placeholder="plan" miw={140} flex={1} />
            <TextInput name="value" label="Value" placeholder="pro" miw={140} flex={2} description="Numbers, true/false and JSON are stored typed." />
            <Button type="submit" variant="default" loading={update.isPending && !editing}>
              Add key
            </Button>
          </Group>
        </form>
        <ErrorMessage error={dataError} />
      </Stack>
    </Paper>
  );
}
