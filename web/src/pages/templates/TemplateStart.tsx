import { Alert, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { type Draft, EMPTY_DRAFT, FORMAT_LABELS, type Format, templateKeys } from './templates.ts';

/** "Start from": the starters (GET /templates/starters) fill the new template's fields. */
export function StarterPicker({ onPick }: { onPick: (draft: Partial<Draft>) => void }) {
  const starters = useQuery({ queryKey: templateKeys.starters, queryFn: () => call(api.GET('/templates/starters')) });
  return (
    <Select
      label="Start from"
      description="A responsive starter in MJML, or a blank HTML template."
      placeholder="Blank HTML"
      clearable
      data={(starters.data?.data ?? []).map((s) => ({ value: s.id, label: `${s.name}: ${s.description}` }))}
      onChange={(value) => {
        const starter = starters.data?.data.find((s) => s.id === value);
        onPick(starter ? { name: starter.name, subject: starter.subject, type: starter.type, format: 'mjml', body: starter.source } : { format: 'html', body: EMPTY_DRAFT.body });
      }}
    />
  );
}

/**
 * HTML, MJML or Visual. A visual template can become MJML or HTML, one way: the editor's layout is
 * not rebuilt from them (docs/templates.md).
 */
export function FormatChoice({ format, saved, onChange }: { format: Format; saved: Format | undefined; onChange: (format: Format) => void }) {
  // A new template may start visual; a saved HTML or MJML one is not rebuilt into a design.
  const formats: Format[] = !saved || format === 'visual' || saved === 'visual' ? ['html', 'mjml', 'visual'] : ['html', 'mjml'];
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500} id="format-label">
        Format
      </Text>
      <SegmentedControl aria-labelledby="format-label" value={format} onChange={(v) => onChange(v as Format)} data={formats.map((f) => ({ value: f, label: FORMAT_LABELS[f] }))} />
      {saved === 'visual' && format !== 'visual' && (
        <Alert color="yellow" variant="light" p="xs">
          Saving as {FORMAT_LABELS[format]} leaves the visual editor for good: its layout is kept only as {FORMAT_LABELS[format]}.
        </Alert>
      )}
      {saved === 'mjml' && format === 'html' && (
        <Alert color="yellow" variant="light" p="xs">
          Saving as HTML keeps the HTML rendered from the MJML; the MJML itself stays only in the history.
        </Alert>
      )}
    </Stack>
  );
}
