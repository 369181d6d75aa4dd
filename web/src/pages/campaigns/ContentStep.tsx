import { Grid, NativeSelect, Stack, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { useProject } from '../../shell/project.ts';
import { BodyEditor } from '../templates/BodyEditor.tsx';
import { type Picked, PreviewPane, type Rendered } from '../templates/PreviewPane.tsx';
import { syntaxErrorOf } from '../templates/templates.ts';
import type { Draft } from './campaigns.ts';

type Props = { draft: Draft; set: (patch: Partial<Draft>) => void; saveError: unknown };

/** Step 1: the message, from a template or written here, previewed live as a chosen contact gets it. */
export function ContentStep({ draft, set, saveError }: Props) {
  const project = useProject();
  const [contact, setContact] = useState<Picked | null>(null);
  const templates = useQuery({
    queryKey: ['templates', project.id, 'list', { picker: true }],
    queryFn: () => call(api.GET('/templates', { params: { query: { pageSize: 100, sort: 'name', dir: 'asc' } } })),
  });
  const [subject] = useDebouncedValue(draft.subject, 400);
  const [body] = useDebouncedValue(draft.body, 400);
  const preview = useQuery({
    queryKey: ['templates', project.id, 'preview', subject, body, draft.type, contact?.id ?? null],
    // The campaign's type decides whether an unsubscribe link is checked for.
    queryFn: () => call(api.POST('/templates/preview', { body: { subject, body, type: draft.type, contactId: contact?.id ?? null } })),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const [rendered, setRendered] = useState<Rendered>();
  useEffect(() => {
    if (preview.data) setRendered(preview.data);
  }, [preview.data]);
  const syntax = syntaxErrorOf(preview.error) ?? syntaxErrorOf(saveError);
  const error = asApiError(saveError);

  function chooseTemplate(id: string) {
    const template = templates.data?.data.find((t) => t.id === id);
    if (!template) return set({ templateId: '' });
    const at = template.from.lastIndexOf('@');
    set({
      templateId: id,
      subject: template.subject,
      body: template.body,
      fromLocal: template.from.slice(0, at),
      fromDomain: template.from.slice(at + 1),
      fromName: template.fromName ?? '',
      replyTo: template.replyTo ?? '',
      type: template.type === 'TRANSACTIONAL' ? 'TRANSACTIONAL' : 'MARKETING',
    });
  }

  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, md: 6 }}>
        <Stack>
          <TextInput
            label="Campaign name"
            description="For you; recipients do not see it."
            required
            value={draft.name}
            onChange={(e) => set({ name: e.currentTarget.value })}
            error={error?.field('name')}
          />
          <NativeSelect
            label="Start from a template"
            description="Copies its subject, body and sender; you can still change them here."
            value={draft.templateId}
            onChange={(e) => chooseTemplate(e.currentTarget.value)}
            data={[{ value: '', label: 'No template: write it here' }, ...(templates.data?.data ?? []).map((t) => ({ value: t.id, label: t.name }))]}
          />
          <TextInput
            label="Subject"
            required
            value={draft.subject}
            onChange={(e) => set({ subject: e.currentTarget.value })}
            error={syntax?.field === 'subject' ? syntax.message : error?.field('subject')}
          />
          <BodyEditor value={draft.body} onChange={(value) => set({ body: value })} error={syntax?.field === 'body' ? syntax : undefined} fieldError={error?.field('body')} />
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 6 }}>
        <PreviewPane
          contact={contact}
          onContactChange={setContact}
          rendered={rendered}
          pending={preview.isFetching}
          problem={preview.error ? (syntax ? 'Fix the syntax error to render it again.' : asApiError(preview.error)?.message) : undefined}
        />
      </Grid.Col>
    </Grid>
  );
}
