import { Alert, Group, Loader, Paper, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { useProject } from '../../shell/project.ts';

export type Picked = { id: string; email: string };
export type Rendered = { subject: string; html: string; text: string };

/** Choose whose data renders the preview: a searchable list of the project's contacts. */
function ContactPicker({ value, onChange }: { value: Picked | null; onChange: (contact: Picked | null) => void }) {
  const project = useProject();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const query = debounced === value?.email ? '' : debounced;
  const contacts = useQuery({
    queryKey: ['contacts', project.id, 'picker', query],
    queryFn: () => call(api.GET('/contacts', { params: { query: { limit: 20, search: query || undefined, sort: 'email', dir: 'asc' } } })),
    placeholderData: keepPreviousData,
  });
  const found = contacts.data?.data.map((c) => ({ value: c.id, label: c.email })) ?? [];
  const data = value && !found.some((o) => o.value === value.id) ? [{ value: value.id, label: value.email }, ...found] : found;
  return (
    <Select
      label="Preview as contact"
      description="The contact's data fills the placeholders, as when sending to them."
      placeholder="Search contacts by email"
      searchable
      clearable
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options }) => options}
      data={data}
      value={value?.id ?? null}
      onChange={(id, option) => onChange(id && option ? { id, email: option.label } : null)}
      nothingFoundMessage={contacts.isFetching ? 'Searching…' : 'No contact matches'}
      error={contacts.isError ? asApiError(contacts.error)?.message : undefined}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

type Props = {
  contact: Picked | null;
  onContactChange: (contact: Picked | null) => void;
  rendered: Rendered | undefined;
  pending: boolean;
  /** Why the last render failed (a syntax error is shown at its line; this says the preview is stale). */
  problem: string | undefined;
};

/**
 * The rendered message as the recipient gets it, in a sandboxed frame: no script runs, no form
 * submits, no popup opens. Same origin only so that the page (and its tests) can read what it shows;
 * without scripts that grants the message nothing.
 */
export function PreviewPane({ contact, onContactChange, rendered, pending, problem }: Props) {
  const [view, setView] = useState<'html' | 'text'>('html');
  return (
    <Stack gap="sm" component="section" aria-label="Preview">
      <ContactPicker value={contact} onChange={onContactChange} />
      <Group justify="space-between" gap="xs">
        <SegmentedControl
          aria-label="Preview part"
          size="xs"
          value={view}
          onChange={(v) => setView(v as 'html' | 'text')}
          data={[
            { value: 'html', label: 'HTML' },
            { value: 'text', label: 'Plain text' },
          ]}
        />
        {pending && <Loader size="xs" aria-label="Rendering the preview" />}
      </Group>
      {problem && (
        <Alert color="red" variant="light" p="xs" role="alert" title="The preview is not up to date">
          {problem}
        </Alert>
      )}
      <Paper withBorder radius="md" p="sm">
        <Text size="xs" c="dimmed">
          Subject
        </Text>
        <Text fw={600} style={{ wordBreak: 'break-word' }} aria-label="Rendered subject" data-testid="preview-subject">
          {rendered?.subject ?? ' '}
        </Text>
      </Paper>
      {view === 'html' ? (
        <iframe
          title="Rendered email"
          sandbox="allow-same-origin"
          srcDoc={rendered?.html ?? ''}
          style={{ width: '100%', height: 480, border: '1px solid var(--mantine-color-default-border)', borderRadius: 8, background: 'white' }}
        />
      ) : (
        <Paper withBorder radius="md" p="sm" mah={480} style={{ overflow: 'auto' }}>
          <Text component="pre" size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', margin: 0 }} aria-label="Rendered plain text">
            {rendered?.text ?? ''}
          </Text>
        </Paper>
      )}
    </Stack>
  );
}
