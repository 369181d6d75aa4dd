import { Alert, Group, List, Loader, Paper, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { useProject } from '../../shell/project.ts';
import type { Check } from './templates.ts';

/** Light alerts' titles in the text colour: orange and yellow titles on their light background fall under WCAG AA contrast. */
const READABLE_TITLE = { title: { color: 'var(--mantine-color-text)' } };

export type Picked = { id: string; email: string };
export type Rendered = { subject: string; html: string; text: string; emptyPlaceholders: string[]; checks: Check[] };

/**
 * Dark mode as the mail apps that force it draw a light email: colours inverted, hues and images
 * kept. An approximation, but it shows text that would vanish on a dark background.
 */
const DARK_STYLE = '<style>html{filter:invert(1) hue-rotate(180deg);background:#fff}img{filter:invert(1) hue-rotate(180deg)}</style>';
const WIDTH = { desktop: '100%', phone: '390px' } as const;

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
  const [device, setDevice] = useState<'desktop' | 'phone'>('desktop');
  const [dark, setDark] = useState(false);
  return (
    <Stack gap="sm" component="section" aria-label="Preview">
      <ContactPicker value={contact} onChange={onContactChange} />
      <Group justify="space-between" gap="xs" wrap="wrap">
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
        {view === 'html' && (
          <SegmentedControl
            aria-label="Preview width"
            size="xs"
            value={device}
            onChange={(v) => setDevice(v as 'desktop' | 'phone')}
            data={[
              { value: 'desktop', label: 'Desktop' },
              { value: 'phone', label: 'Phone' },
            ]}
          />
        )}
        {view === 'html' && (
          <SegmentedControl
            aria-label="Preview colours"
            size="xs"
            value={dark ? 'dark' : 'light'}
            onChange={(v) => setDark(v === 'dark')}
            data={[
              { value: 'light', label: 'Light' },
              { value: 'dark', label: 'Dark' },
            ]}
          />
        )}
        {pending && <Loader size="xs" role="status" aria-label="Rendering the preview" />}
      </Group>
      {rendered && rendered.emptyPlaceholders.length > 0 && (
        <Alert color="yellow" variant="light" p="xs" styles={READABLE_TITLE} title={contact ? `Empty for ${contact.email}` : 'Empty without a contact'}>
          <Text size="sm">
            These placeholders would render empty: {rendered.emptyPlaceholders.join(', ')}. Give them a fallback, such as{' '}
            <code>{`{{ ${rendered.emptyPlaceholders[0]} ?? "friend" }}`}</code>.
          </Text>
        </Alert>
      )}
      {rendered && rendered.checks.length > 0 && (
        <Alert color="orange" variant="light" p="xs" title="Checks before sending" styles={READABLE_TITLE}>
          <List size="sm" aria-label="Checks before sending">
            {rendered.checks.map((check, index) => (
              <List.Item key={`${check.code}-${index}`}>
                <strong>{check.where}</strong>: {check.message}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
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
          srcDoc={(rendered?.html ?? '') + (dark ? DARK_STYLE : '')}
          style={{
            width: WIDTH[device],
            maxWidth: '100%',
            alignSelf: 'center',
            height: 560,
            border: '1px solid var(--mantine-color-default-border)',
            borderRadius: 8,
            background: 'white',
          }}
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
