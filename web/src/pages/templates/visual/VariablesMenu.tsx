import { Button, Menu, ScrollArea, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type MouseEvent, useState } from 'react';
import { api, call } from '../../../api/client.ts';
import { useProject } from '../../../shell/project.ts';

/** What every message can name besides the contact's data (docs/decisions/templates.md, rendering). */
const BUILT_INS = [
  { label: 'Email address', text: '{{ email }}' },
  { label: 'Unsubscribe link', text: '{{ unsubscribeUrl }}' },
  { label: 'Email preferences link', text: '{{ manageUrl }}' },
];

/** A contact field as Liquid, with the fallback shown when the contact has no value (a Liquid string has no escapes). */
export function placeholderOf(field: string, fallback: string): string {
  const path = /^[A-Za-z_][A-Za-z0-9_]*$/.test(field) ? `data.${field}` : `data["${field.replaceAll('"', "'")}"]`;
  return `{{ ${path} ?? "${fallback.replaceAll('"', "'")}" }}`;
}

/**
 * A press anywhere in the page outside the canvas ends the editing of a text (GrapesJS listens on
 * the document); the menu stops it there, so the cursor stays where the variable goes.
 */
const keepEditing = (event: MouseEvent) => event.stopPropagation();

/**
 * "Variables": the contact's fields (GET /contacts/fields) and the built-in values, put at the
 * cursor of the text or button being edited.
 */
export function VariablesMenu({ onInsert }: { onInsert: (text: string) => void }) {
  const project = useProject();
  const [fallback, setFallback] = useState('');
  const fields = useQuery({ queryKey: ['contacts', project.id, 'fields'], queryFn: () => call(api.GET('/contacts/fields')), staleTime: 60_000 });
  const custom = (fields.data?.data ?? []).filter((field) => !field.standard);
  return (
    <Menu position="bottom-end" width={280} closeOnItemClick>
      <Menu.Target>
        <Button size="xs" variant="default" onMouseDown={keepEditing}>
          Variables
        </Button>
      </Menu.Target>
      <Menu.Dropdown onMouseDown={keepEditing}>
        <TextInput
          size="xs"
          p={6}
          label="Fallback when the contact has no value"
          value={fallback}
          onChange={(event) => setFallback(event.currentTarget.value)}
          onKeyDown={(event) => event.stopPropagation()}
        />
        <Menu.Label>Contact fields</Menu.Label>
        <ScrollArea.Autosize mah={220}>
          {fields.isPending && <Menu.Item disabled>Loading the fields…</Menu.Item>}
          {fields.isSuccess && custom.length === 0 && <Menu.Item disabled>No contact has data fields yet</Menu.Item>}
          {custom.map((field) => (
            <Menu.Item key={field.name} onClick={() => onInsert(placeholderOf(field.name, fallback))}>
              {field.name}
            </Menu.Item>
          ))}
        </ScrollArea.Autosize>
        <Menu.Divider />
        <Menu.Label>Built in</Menu.Label>
        {BUILT_INS.map((item) => (
          <Menu.Item key={item.text} onClick={() => onInsert(item.text)}>
            {item.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
