import { Anchor, Button, Divider, Grid, Group, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { BodyEditor } from './BodyEditor.tsx';
import { DeleteTemplate, HistoryPanel } from './HistoryPanel.tsx';
import { type Picked, PreviewPane, type Rendered } from './PreviewPane.tsx';
import { FIELDS, fieldMessage, TemplateFields } from './TemplateFields.tsx';
import { FormatChoice, StarterPicker } from './TemplateStart.tsx';
import { TestSendPanel } from './TestSendPanel.tsx';
import { BLANK_MJML, type Draft, draftOf, EMPTY_DRAFT, inputOf, isMjml, sameDraft, syntaxErrorOf, type Template, templateKeys } from './templates.ts';
import { UsagePanel } from './UsagePanel.tsx';
import { VisualBody } from './VisualBody.tsx';
import type { Content } from './visual/grapes.ts';
import type { VisualHandle } from './visual/VisualEditor.tsx';

/**
 * /p/{id}/templates/new and /p/{id}/templates/{templateId}: the editor, with a live preview. One
 * route, so that the contact the preview uses stays chosen when a new template is created or a
 * copy opens.
 */
export function Component() {
  const project = useProject();
  const { templateId } = useParams();
  const id = templateId === 'new' ? undefined : templateId;
  const [contact, setContact] = useState<Picked | null>(null);
  // A sample contact is chosen by default, so placeholders show real values; clearing it sticks.
  const [picked, setPicked] = useState(false);
  const sample = useQuery({
    queryKey: ['contacts', project.id, 'sample'],
    queryFn: () => call(api.GET('/contacts', { params: { query: { limit: 1 } } })),
    enabled: !picked,
  });
  useEffect(() => {
    const first = sample.data?.data[0];
    if (!picked && first) {
      setContact({ id: first.id, email: first.email });
      setPicked(true);
    }
  }, [sample.data, picked]);
  const choose = (next: Picked | null) => {
    setPicked(true);
    setContact(next);
  };
  const template = useQuery({
    queryKey: templateKeys.one(project.id, id ?? ''),
    queryFn: () => call(api.GET('/templates/{id}', { params: { path: { id: id! } } })),
    enabled: !!id,
  });
  if (!id) return <Editor key="new" contact={contact} setContact={choose} />;
  if (template.isError) return <LoadError error={template.error} what="the template" retry={() => template.refetch()} />;
  if (!template.data) return <Loading rows={8} label="Loading the template" />;
  return <Editor key={template.data.id} template={template.data} contact={contact} setContact={choose} />;
}

type EditorProps = { template?: Template; contact: Picked | null; setContact: (contact: Picked | null) => void };

function Editor({ template, contact, setContact }: EditorProps) {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [saved, setSaved] = useState<Draft | undefined>(template && draftOf(template));
  const [draft, setDraft] = useState<Draft>(saved ?? EMPTY_DRAFT);
  const dirty = !saved || !sameDraft(draft, saved);
  // The visual editor, while one is open; a restored version or a starter opens a new one (and a new source editor).
  const visual = useRef<VisualHandle | null>(null);
  const [opening, setOpening] = useState(0);

  const save = useMutation({
    mutationFn: async (input: Draft) => {
      const body = inputOf(input);
      if (!template) return call(api.POST('/templates', { body }));
      return call(api.PATCH('/templates/{id}', { params: { path: { id: template.id } }, body }));
    },
    onSuccess: async (result, input) => {
      queryClient.setQueryData(templateKeys.one(project.id, result.id), result);
      await queryClient.invalidateQueries({ queryKey: [...templateKeys.all(project.id), 'list'] });
      await queryClient.invalidateQueries({ queryKey: templateKeys.versions(project.id, result.id) });
      setSaved(input);
      if (!template) navigate(projectPath(project.id, 'templates', result.id), { replace: true });
    },
  });
  const duplicate = useMutation({
    mutationFn: () => call(api.POST('/templates/{id}/duplicate', { params: { path: { id: template!.id } } })),
    onSuccess: async (copy) => {
      await queryClient.invalidateQueries({ queryKey: [...templateKeys.all(project.id), 'list'] });
      navigate(projectPath(project.id, 'templates', copy.id));
    },
  });
  function set<K extends keyof Draft>(key: K, value: Draft[K]) {
    setDraft((current) => ({ ...current, [key]: value }));
    if (save.error) save.reset();
  }
  const designed = (content: Content) => {
    setDraft((current) => ({ ...current, body: content.source, editorState: content.editorState ? JSON.stringify(content.editorState) : '' }));
    if (save.error) save.reset();
  };
  /** The draft with the visual editor's content as it is now (an edit still in progress included). */
  async function latest(): Promise<Draft> {
    if (draft.format !== 'visual' || !visual.current) return draft;
    const content = await visual.current.read();
    const next = { ...draft, body: content.source, editorState: content.editorState ? JSON.stringify(content.editorState) : '' };
    setDraft(next);
    return next;
  }

  // The live preview: the draft's subject and body, rendered server-side by the sending renderer.
  const [subject] = useDebouncedValue(draft.subject, 400);
  const [body] = useDebouncedValue(draft.body, 400);
  const source = { subject, body, format: draft.format, type: draft.type };
  const preview = useQuery({
    queryKey: [...templateKeys.all(project.id), 'preview', source, contact?.id ?? null],
    queryFn: () =>
      call(
        api.POST('/templates/preview', {
          body: {
            subject: source.subject,
            format: source.format,
            ...(source.format === 'html' ? { body: source.body } : { source: source.body }),
            type: source.type,
            contactId: contact?.id ?? null,
          },
        }),
      ),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const [rendered, setRendered] = useState<Rendered>();
  useEffect(() => {
    if (preview.data) setRendered(preview.data);
  }, [preview.data]);

  const syntax = syntaxErrorOf(preview.error) ?? syntaxErrorOf(save.error);
  const bodySyntax = syntax?.field === 'body' ? syntax : undefined;
  const subjectSyntax = syntax?.field === 'subject' ? syntax : undefined;
  const previewProblem = preview.error ? (syntax ? 'Fix the syntax error to render it again.' : asApiError(preview.error)?.message) : undefined;

  async function saveFirst(): Promise<boolean> {
    const next = await latest();
    if (saved && sameDraft(next, saved)) return true;
    try {
      await save.mutateAsync(next);
      return true;
    } catch {
      return false;
    }
  }

  // The visual editor takes the whole width; the preview and the panels go below it.
  const wide = draft.format === 'visual';
  return (
    <Stack maw={1400}>
      <PageHeader
        title={template ? (saved?.name ?? template.name) : 'New template'}
        description={
          <Anchor component={Link} to={projectPath(project.id, 'templates')} size="sm">
            ← All templates
          </Anchor>
        }
        actions={
          template && (
            <Button variant="default" onClick={() => duplicate.mutate()} loading={duplicate.isPending}>
              Duplicate
            </Button>
          )
        }
      />
      {duplicate.isError && <ErrorMessage error={duplicate.error} />}
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: wide ? 12 : 7 }}>
          <form
            aria-label="Template"
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              latest().then((next) => save.mutate(next));
            }}
          >
            <Stack gap="md">
              {!template && (
                <StarterPicker
                  onPick={(starter) => {
                    setDraft((current) => ({
                      ...current,
                      ...starter,
                      format: current.format === 'visual' && starter.format === 'mjml' ? 'visual' : (starter.format ?? current.format),
                      editorState: '',
                    }));
                    setOpening((n) => n + 1);
                  }}
                />
              )}
              <TemplateFields draft={draft} set={set} error={save.error} subjectSyntax={subjectSyntax} />
              <FormatChoice
                format={draft.format}
                saved={saved?.format}
                onChange={async (format) => {
                  // Leaving the visual editor keeps its MJML as it is now (an edit in progress included).
                  const current = await latest();
                  // MJML becoming HTML starts from the HTML rendered at the last save; a new design
                  // that is not MJML yet starts from a blank one.
                  const fromRendered = format === 'html' && current.format !== 'html' && template && template.format !== 'html';
                  const blank = format === 'visual' && !isMjml(current.body);
                  setDraft({ ...current, format, body: fromRendered ? template.body : blank ? BLANK_MJML : current.body });
                }}
              />
              {draft.format === 'visual' ? (
                <VisualBody
                  key={opening}
                  source={draft.body}
                  editorState={draft.editorState}
                  onChange={designed}
                  handle={visual}
                  error={bodySyntax}
                  fieldError={fieldMessage(save.error, 'source')}
                />
              ) : (
                // A restored version or a starter opens a new source editor too: an editor still settling a
                // keystroke would hold the restored body back and could send the old one on with the next.
                <BodyEditor key={opening} value={draft.body} onChange={(body) => set('body', body)} error={bodySyntax} fieldError={fieldMessage(save.error, 'body')} />
              )}
              {!syntaxErrorOf(save.error) && <ErrorMessage error={save.error} shownFields={FIELDS} />}
              <Group gap="sm">
                <Button type="submit" loading={save.isPending}>
                  {template ? 'Save template' : 'Create template'}
                </Button>
                <Text size="sm" c="dimmed" role="status">
                  {save.isPending ? 'Saving…' : dirty ? (template ? 'Unsaved changes' : 'Not created yet') : 'All changes saved'}
                </Text>
              </Group>
            </Stack>
          </form>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: wide ? 12 : 5 }}>
          <Stack gap="lg">
            <PreviewPane contact={contact} onContactChange={setContact} rendered={rendered} pending={preview.isFetching} problem={previewProblem} />
            {template && (
              <>
                <Divider />
                <TestSendPanel templateId={template.id} saveFirst={saveFirst} dirty={dirty} contactId={contact?.id} />
                <Divider />
                <HistoryPanel
                  templateId={template.id}
                  onRestored={(restored) => {
                    const restoredDraft = draftOf(restored);
                    setSaved(restoredDraft);
                    setDraft(restoredDraft);
                    setOpening((n) => n + 1);
                  }}
                />
                <Divider />
                <UsagePanel templateId={template.id} />
                <DeleteTemplate template={template} />
              </>
            )}
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
