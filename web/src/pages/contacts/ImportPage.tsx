import { Alert, Anchor, Button, FileInput, Group, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import Papa from 'papaparse';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { JobProgress, useJob } from './jobs.tsx';

const MAX_BYTES = 5 * 1024 * 1024;
const PREVIEW_ROWS = 5;

type Preview = { header: string[]; rows: string[][] };

/** Where the server puts a column (contact-import.schemas.ts planColumns): email, subscribed or data.<name>. */
function destination(name: string, header: string[], index: number): string {
  const lower = name.trim().toLowerCase();
  const first = (wanted: string) => header.findIndex((h) => h.trim().toLowerCase() === wanted) === index;
  if (lower === 'email') return first('email') ? 'Email address' : 'Ignored (second email column)';
  if (lower === 'subscribed') return first('subscribed') ? 'Subscription' : 'Ignored (second subscribed column)';
  return name.trim() ? `data.${name.trim()}` : 'Ignored (no name)';
}

export function Component() {
  const project = useProject();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<Preview>();
  const [problem, setProblem] = useState<string>();
  const [jobId, setJobId] = useState<string>();

  function choose(chosen: File | null) {
    setFile(chosen);
    setPreview(undefined);
    setProblem(undefined);
    setJobId(undefined);
    if (!chosen) return;
    if (chosen.size > MAX_BYTES) return setProblem(`The file is ${(chosen.size / 1024 / 1024).toFixed(1)} MB: at most 5 MB per import.`);
    Papa.parse<string[]>(chosen, {
      preview: PREVIEW_ROWS + 1,
      skipEmptyLines: true,
      complete: (result) => {
        const [header = [], ...rows] = result.data;
        if (!header.some((h) => h.trim().toLowerCase() === 'email')) setProblem(`The header row has no email column (found: ${header.join(', ') || 'nothing'}).`);
        setPreview({ header, rows });
      },
      error: (error) => setProblem(`The file could not be read: ${error.message}`),
    });
  }

  const upload = useMutation({
    mutationFn: async (chosen: File) => {
      const form = new FormData();
      form.append('file', chosen, chosen.name);
      return call(api.POST('/contacts/import', { body: form as never, bodySerializer: (body: unknown) => body as FormData }));
    },
    onSuccess: (started) => setJobId(started.jobId),
  });
  const job = useJob('import', jobId, () => queryClient.invalidateQueries({ queryKey: ['contacts', project.id] }));

  return (
    <Stack maw={1100}>
      <Anchor component={Link} to={projectPath(project.id, 'contacts')} size="sm">
        ← All contacts
      </Anchor>
      <PageHeader
        title="Import contacts"
        description="A CSV file of at most 5 MB with a header row. The email column is required; a subscribed column (true/false) sets the subscription; every other column becomes contact data. Existing contacts are updated."
      />
      <FileInput
        label="CSV file"
        placeholder="Choose a .csv file"
        accept=".csv,text/csv"
        value={file}
        onChange={choose}
        clearable
        clearButtonProps={{ 'aria-label': 'Clear the chosen file' }}
        maw={480}
      />
      {problem && (
        <Alert color="red" role="alert">
          {problem}
        </Alert>
      )}
      {preview && (
        <Stack gap="xs">
          <Text fw={600}>Columns</Text>
          <Table.ScrollContainer minWidth={480}>
            <Table aria-label="Column preview" striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Column</Table.Th>
                  <Table.Th>Imported as</Table.Th>
                  <Table.Th>First values</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {preview.header.map((name, index) => (
                  <Table.Tr key={index}>
                    <Table.Td>{name || '(empty)'}</Table.Td>
                    <Table.Td>{destination(name, preview.header, index)}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-word' }}>{preview.rows.map((row) => row[index] ?? '').join(' · ')}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Group>
            <Button onClick={() => file && upload.mutate(file)} loading={upload.isPending} disabled={Boolean(problem) || Boolean(jobId)}>
              Import {file?.name}
            </Button>
          </Group>
          <ErrorMessage error={upload.error} />
        </Stack>
      )}
      {jobId && <JobProgress job={job.data} error={job.error} label="Import" />}
      {job.data?.status === 'completed' && (
        <Anchor component={Link} to={projectPath(project.id, 'contacts')}>
          See the contacts
        </Anchor>
      )}
    </Stack>
  );
}
