import { Alert, Box, Button, Group, Paper, SegmentedControl, Stack, Text } from '@mantine/core';
import type { Editor } from 'grapesjs';
import { type RefObject, useEffect, useId, useRef, useState } from 'react';
import { api, call } from '../../../api/client.ts';
import { asApiError } from '../../../api/errors.ts';
import type { SyntaxErrorAt } from '../templates.ts';
import { type Content, contentOf, createEditor, insertAtCursor } from './grapes.ts';
import { VariablesMenu } from './VariablesMenu.tsx';
import './visual.css';

/** What the page asks of the open editor: its content now (a text being edited included). */
export type VisualHandle = { read: () => Promise<Content> };

export type VisualEditorProps = {
  initial: Content;
  /** Called, a moment after the author stops, with the editor's MJML and state. */
  onChange: (content: Content) => void;
  handle: RefObject<VisualHandle | null>;
  /** The server's refusal of the MJML the editor made (line numbers are the generated MJML's). */
  error?: SyntaxErrorAt;
  fieldError?: string;
};

async function uploadImage(file: File): Promise<string> {
  const form = new FormData();
  form.append('file', file);
  const uploaded = await call(api.POST('/uploads/image', { body: form as never }));
  return uploaded.url;
}

/**
 * The visual editor of a `visual` template (docs/templates.md): GrapesJS with grapesjs-mjml, its
 * blocks and settings in the dashboard's panels, undo and redo, a Variables menu and an image
 * picker that uploads to the project. Loaded in its own chunk.
 */
export default function VisualEditor({ initial, onChange, handle, error, fieldError }: VisualEditorProps) {
  const canvas = useRef<HTMLDivElement>(null);
  const blocks = useRef<HTMLDivElement>(null);
  const traits = useRef<HTMLDivElement>(null);
  const styles = useRef<HTMLDivElement>(null);
  const panelId = useId();
  const [editor, setEditor] = useState<Editor>();
  const [history, setHistory] = useState({ undo: false, redo: false });
  const [uploadProblem, setUploadProblem] = useState<string>();
  const [tab, setTab] = useState('Blocks');
  const [notice, setNotice] = useState<string>();
  // The first content only: a later one (a restored version) mounts a new editor (the page's key).
  const opened = useRef(initial);
  const changed = useRef(onChange);
  changed.current = onChange;
  const changedNow = useRef(() => {});

  useEffect(() => {
    const upload = async (file: File) => {
      setUploadProblem(undefined);
      try {
        return await uploadImage(file);
      } catch (cause) {
        setUploadProblem(asApiError(cause)?.message);
        throw cause;
      }
    };
    const created = createEditor({ canvas: canvas.current!, blocks: blocks.current!, traits: traits.current!, styles: styles.current! }, opened.current, upload);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const update = () => {
      const um = created.UndoManager;
      setHistory({ undo: um.hasUndo(), redo: um.hasRedo() });
      clearTimeout(timer);
      // Reading the design while a text is edited can move its cursor: it is read when the edit ends.
      timer = setTimeout(() => {
        if (!created.getEditing()) contentOf(created).then((content) => changed.current(content));
      }, 300);
    };
    created.on('update undo redo component:input rte:disable', update);
    changedNow.current = update;
    handle.current = { read: () => contentOf(created, { finish: true }) };
    setEditor(created);
    return () => {
      clearTimeout(timer);
      handle.current = null;
      created.destroy();
    };
  }, [handle]);

  const insert = (text: string) => {
    if (!editor) return;
    const done = insertAtCursor(editor, text);
    if (done) changedNow.current();
    setNotice(done ? undefined : 'Select a text or a button first (double-click it to place the cursor), then choose the variable.');
  };

  return (
    <Stack gap={4}>
      <Group justify="space-between" gap="xs">
        <Text size="sm" fw={500} id="visual-editor-label">
          Design
        </Text>
        <Group gap="xs" role="toolbar" aria-label="Design tools">
          <Button size="xs" variant="default" disabled={!history.undo} onClick={() => editor?.UndoManager.undo()} title="Undo (Ctrl+Z)">
            Undo
          </Button>
          <Button size="xs" variant="default" disabled={!history.redo} onClick={() => editor?.UndoManager.redo()} title="Redo (Ctrl+Shift+Z)">
            Redo
          </Button>
          <VariablesMenu onInsert={insert} />
        </Group>
      </Group>
      {notice && (
        <Alert color="yellow" variant="light" p="xs" withCloseButton onClose={() => setNotice(undefined)}>
          {notice}
        </Alert>
      )}
      <Paper withBorder radius="sm" className="mr-visual" style={{ display: 'flex', height: 680, overflow: 'hidden' }} aria-labelledby="visual-editor-label">
        <Box w={236} style={{ borderRight: '1px solid var(--mantine-color-default-border)', overflowY: 'auto', flexShrink: 0 }}>
          <SegmentedControl fullWidth radius={0} value={tab} onChange={setTab} data={['Blocks', 'Settings']} aria-label="Side panel" />
          <Box p={4} display={tab === 'Blocks' ? 'block' : 'none'}>
            <Text size="xs" c="dimmed" p={4}>
              Drag a block onto the email.
            </Text>
            <div ref={blocks} />
          </Box>
          <Box p={4} display={tab === 'Settings' ? 'block' : 'none'}>
            <Text size="xs" c="dimmed" p={4}>
              Settings and style of the selected element.
            </Text>
            <div ref={traits} id={`${panelId}-traits`} />
            <div ref={styles} id={`${panelId}-styles`} />
          </Box>
        </Box>
        <Box style={{ flex: 1, minWidth: 0 }}>
          <div ref={canvas} style={{ height: '100%' }} />
        </Box>
      </Paper>
      <div aria-live="polite">
        {uploadProblem && (
          <Alert color="red" variant="light" p="xs" role="alert" aria-label="The image was not uploaded">
            The image was not uploaded: {uploadProblem}
          </Alert>
        )}
        {error && (
          <Alert color="red" variant="light" p="xs" role="alert" aria-label="Problem in the design">
            The email could not be built from this design: {error.message}
            {error.line ? ` (at line ${error.line} of the MJML the design makes)` : ''}
          </Alert>
        )}
        {!error && fieldError && (
          <Alert color="red" variant="light" p="xs" role="alert">
            {fieldError}
          </Alert>
        )}
      </div>
    </Stack>
  );
}
