import { liquid } from '@codemirror/lang-liquid';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { Alert, Input, Stack } from '@mantine/core';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { useEffect, useId, useMemo, useState } from 'react';
import type { SyntaxErrorAt } from './templates.ts';

type Props = {
  value: string;
  onChange: (value: string) => void;
  /** A syntax error in the body: marked at its line and column, and said below the editor. */
  error?: SyntaxErrorAt;
  /** Any other refusal of the body (e.g. empty). */
  fieldError?: string;
  label?: string;
};

/** The diagnostic of a syntax error: from its column to the end of its line (the whole line without a column). */
export function diagnosticAt(view: EditorView, error: SyntaxErrorAt): Diagnostic[] {
  if (!error.line) return [];
  const doc = view.state.doc;
  const line = doc.line(Math.min(Math.max(error.line, 1), doc.lines));
  const from = Math.min(line.from + Math.max((error.column ?? 1) - 1, 0), line.to);
  const to = from < line.to ? line.to : Math.min(from + 1, doc.length);
  return [{ from, to, severity: 'error', message: error.message }];
}

/** The HTML and Liquid source of a template body in CodeMirror 6, with syntax errors marked at their line. */
export function BodyEditor({ value, onChange, error, fieldError, label = 'Body (HTML and Liquid)' }: Props) {
  const labelId = useId();
  const messageId = useId();
  const [view, setView] = useState<EditorView>();
  const extensions = useMemo(
    () => [
      liquid(),
      lintGutter(),
      EditorView.lineWrapping,
      // tabindex: the editable content is the focusable content of the scrolling region (a long
      // source scrolls inside the editor), as assistive tools expect it to be marked.
      EditorView.contentAttributes.of({ 'aria-labelledby': labelId, 'aria-describedby': messageId, 'aria-multiline': 'true', tabindex: '0' }),
    ],
    [labelId, messageId],
  );
  useEffect(() => {
    if (!view) return;
    view.dispatch(setDiagnostics(view.state, error ? diagnosticAt(view, error) : []));
  }, [view, error]);

  return (
    <Stack gap={4}>
      <Input.Label id={labelId} required>
        {label}
      </Input.Label>
      <div data-invalid={error || fieldError ? 'true' : undefined} style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 4, overflow: 'hidden' }}>
        <CodeMirror
          value={value}
          onChange={onChange}
          extensions={extensions}
          onCreateEditor={(created) => setView(created)}
          basicSetup={{ autocompletion: false, foldGutter: false, highlightActiveLine: false }}
          // Tab moves the focus on, as in every other field (no keyboard trap); indent with spaces.
          indentWithTab={false}
          minHeight="320px"
          // A long source scrolls inside the editor: its height stays put while CodeMirror measures
          // the wrapped lines it draws, so the controls below it do not move under the pointer.
          maxHeight="640px"
          theme="light"
        />
      </div>
      <div id={messageId}>
        {error && (
          <Alert color="red" variant="light" p="xs" role="alert" aria-label="Syntax error in the body">
            {error.message}
          </Alert>
        )}
        {!error && fieldError && <Input.Error>{fieldError}</Input.Error>}
      </div>
    </Stack>
  );
}
