import { Alert, Box, Button, Group, Modal, NativeSelect, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { diffLines } from 'diff';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { FORMAT_LABELS, type TemplateVersion, templateKeys } from './templates.ts';

type Row = { kind: 'added' | 'removed' | 'same'; text: string } | { kind: 'skipped'; count: number };

// Unchanged lines shown around a change; longer unchanged stretches are folded.
const CONTEXT = 3;

const linesOf = (value: string) => value.replace(/\n$/, '').split('\n');

/** The line-by-line changes from `before` to `after`, unchanged stretches folded to their context. */
export function changedLines(before: string, after: string): Row[] {
  const parts = diffLines(before, after);
  const rows: Row[] = [];
  parts.forEach((part, index) => {
    const lines = linesOf(part.value);
    if (part.added || part.removed) {
      for (const text of lines) rows.push({ kind: part.added ? 'added' : 'removed', text });
      return;
    }
    const head = index === 0 ? 0 : CONTEXT;
    const tail = index === parts.length - 1 ? 0 : CONTEXT;
    if (lines.length <= head + tail + 1) {
      for (const text of lines) rows.push({ kind: 'same', text });
      return;
    }
    for (const text of lines.slice(0, head)) rows.push({ kind: 'same', text });
    rows.push({ kind: 'skipped', count: lines.length - head - tail });
    for (const text of lines.slice(lines.length - tail)) rows.push({ kind: 'same', text });
  });
  return rows;
}

const LINE_STYLE = { display: 'block', textDecoration: 'none', padding: '0 6px', whiteSpace: 'pre-wrap', wordBreak: 'break-word' } as const;

/** Changed lines as a block: added lines in <ins>, removed ones in <del>, each with its sign. */
function Lines({ rows, label }: { rows: Row[]; label: string }) {
  return (
    <Box
      component="pre"
      aria-label={label}
      fz="xs"
      m={0}
      p={4}
      style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 6, maxHeight: 420, overflow: 'auto' }}
    >
      {rows.map((row, index) => {
        const key = `${index}-${row.kind}`;
        if (row.kind === 'skipped')
          return (
            <Text key={key} span c="dimmed" fz="xs" style={LINE_STYLE}>
              … {row.count} unchanged line{row.count === 1 ? '' : 's'}
            </Text>
          );
        if (row.kind === 'same')
          return (
            <span key={key} style={LINE_STYLE}>
              {'  '}
              {row.text}
            </span>
          );
        const Tag = row.kind === 'added' ? 'ins' : 'del';
        return (
          <Tag key={key} data-change={row.kind} style={{ ...LINE_STYLE, background: `var(--mantine-color-${row.kind === 'added' ? 'green' : 'red'}-light)` }}>
            {row.kind === 'added' ? '+ ' : '- '}
            {row.text}
          </Tag>
        );
      })}
    </Box>
  );
}

function useVersion(templateId: string, version: number) {
  const project = useProject();
  return useQuery({
    queryKey: [...templateKeys.versions(project.id, templateId), version],
    queryFn: () => call(api.GET('/templates/{id}/versions/{version}', { params: { path: { id: templateId, version } } })),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The changes from version `from` to version `to`: format, subject and source. */
function Changes({ templateId, from, to }: { templateId: string; from: number; to: number }) {
  const before = useVersion(templateId, from);
  const after = useVersion(templateId, to);
  if (before.isError || after.isError)
    return <LoadError error={before.error ?? after.error} what="the versions" retry={() => void Promise.all([before.refetch(), after.refetch()])} />;
  if (!before.data || !after.data) return <Loading rows={4} label="Loading the versions" />;
  const a = before.data;
  const b = after.data;
  const source = changedLines(a.source, b.source);
  const added = source.filter((r) => r.kind === 'added').length;
  const removed = source.filter((r) => r.kind === 'removed').length;
  return (
    <Stack gap="sm">
      {a.format !== b.format && (
        <Alert color="blue" variant="light" p="xs">
          The format changed from {FORMAT_LABELS[a.format]} to {FORMAT_LABELS[b.format]}.
        </Alert>
      )}
      <Title order={3} size="h5">
        Subject
      </Title>
      {a.subject === b.subject ? <Text size="sm">Unchanged: {a.subject}</Text> : <Lines rows={changedLines(a.subject, b.subject)} label="Changes to the subject" />}
      <Title order={3} size="h5">
        {b.format === 'html' ? 'HTML' : 'MJML source'}
      </Title>
      {added + removed === 0 ? (
        <Text size="sm">Unchanged.</Text>
      ) : (
        <>
          <Text size="sm" data-testid="diff-summary">
            {added} line{added === 1 ? '' : 's'} added, {removed} removed.
          </Text>
          <Lines rows={source} label="Changes to the source" />
        </>
      )}
    </Stack>
  );
}

/** Choose two versions of the history and see what changed between them (docs/templates.md, History). */
export function VersionDiff({ templateId, versions }: { templateId: string; versions: Pick<TemplateVersion, 'version'>[] }) {
  const numbers = versions.map((v) => v.version);
  const [from, setFrom] = useState<number>();
  const [to, setTo] = useState<number>();
  const [open, setOpen] = useState(false);
  if (numbers.length < 2) return null;
  const chosenFrom = from !== undefined && numbers.includes(from) ? from : numbers[1]!;
  const chosenTo = to !== undefined && numbers.includes(to) ? to : numbers[0]!;
  const options = numbers.map((n) => ({ value: String(n), label: `Version ${n}` }));
  return (
    <>
      <Group align="flex-end" gap="xs" wrap="wrap">
        <NativeSelect label="Compare" size="xs" data={options} value={String(chosenFrom)} onChange={(e) => setFrom(Number(e.currentTarget.value))} />
        <NativeSelect label="with" size="xs" data={options} value={String(chosenTo)} onChange={(e) => setTo(Number(e.currentTarget.value))} />
        <Button size="xs" variant="default" disabled={chosenFrom === chosenTo} onClick={() => setOpen(true)}>
          Show changes
        </Button>
      </Group>
      <Modal opened={open} onClose={() => setOpen(false)} size="xl" title={`Changes from version ${chosenFrom} to version ${chosenTo}`}>
        {open && <Changes templateId={templateId} from={chosenFrom} to={chosenTo} />}
      </Modal>
    </>
  );
}
