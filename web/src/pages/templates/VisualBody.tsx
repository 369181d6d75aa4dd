import { Alert, Stack } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { lazy, type RefObject, Suspense, useState } from 'react';
import { Loading } from '../../ui/Loading.tsx';
import { BodyEditor } from './BodyEditor.tsx';
import type { SyntaxErrorAt } from './templates.ts';
import type { Content } from './visual/grapes.ts';
import type { VisualHandle } from './visual/VisualEditor.tsx';

// GrapesJS and the MJML renderer it carries: their own chunk, fetched only when a visual template opens.
const VisualEditor = lazy(() => import('./visual/VisualEditor.tsx'));

/** The narrowest screen the visual editor is offered on: its blocks, canvas (600 px email) and panels side by side. */
export const VISUAL_MIN_WIDTH = 900;

type Props = {
  source: string;
  /** The editor's state as JSON text ('' = none). */
  editorState: string;
  onChange: (content: Content) => void;
  handle: RefObject<VisualHandle | null>;
  error?: SyntaxErrorAt;
  fieldError?: string;
};

/**
 * A visual template's body: the visual editor, or on a narrow screen its MJML in the text editor
 * (docs/templates.md). An edit of the MJML drops the editor's state, so the editor next opens the
 * MJML as it now is.
 */
export function VisualBody({ source, editorState, onChange, handle, error, fieldError }: Props) {
  // What the editor opens with; later content is its own (a restored version remounts it).
  const [initial] = useState<Content>(() => ({ source, editorState: editorState ? (JSON.parse(editorState) as object) : null }));
  const wide = useMediaQuery(`(min-width: ${VISUAL_MIN_WIDTH}px)`, true, { getInitialValueInEffect: false });
  if (!wide) {
    return (
      <Stack gap="xs">
        <Alert color="blue" variant="light" p="xs">
          The visual editor needs a wider screen (at least {VISUAL_MIN_WIDTH} px). Here you can edit the MJML it made; the design opens in the visual editor again on a wider
          screen.
        </Alert>
        <BodyEditor value={source} onChange={(source) => onChange({ source, editorState: null })} error={error} fieldError={fieldError} label="Body (MJML)" />
      </Stack>
    );
  }
  return (
    <Suspense fallback={<Loading rows={6} label="Loading the visual editor" />}>
      <VisualEditor initial={initial} onChange={onChange} handle={handle} error={error} fieldError={fieldError} />
    </Suspense>
  );
}
