import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { FORMAT_LABELS, type Template, templateKeys } from './templates.ts';
import { VersionDiff } from './VersionDiff.tsx';

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * The template's history (docs/templates.md): every save that changed its content, newest first,
 * with who and when; two versions can be compared line by line; "Restore" saves that version
 * again. `onRestored` hands the restored template to the editor.
 */
export function HistoryPanel({ templateId, onRestored }: { templateId: string; onRestored: (template: Template) => void }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const versions = useQuery({
    queryKey: templateKeys.versions(project.id, templateId),
    queryFn: () => call(api.GET('/templates/{id}/versions', { params: { path: { id: templateId } } })),
  });
  const restore = useMutation({
    mutationFn: (version: number) => call(api.POST('/templates/{id}/versions/{version}/restore', { params: { path: { id: templateId, version } } })),
    onSuccess: async (template) => {
      queryClient.setQueryData(templateKeys.one(project.id, template.id), template);
      await queryClient.invalidateQueries({ queryKey: templateKeys.versions(project.id, templateId) });
      onRestored(template);
    },
  });
  const newest = versions.data?.data[0]?.version;
  return (
    <Stack gap="xs" component="section" aria-labelledby="history-title">
      <Title order={2} size="h4" id="history-title">
        History
      </Title>
      {versions.isPending && <Loading rows={2} label="Loading the history" />}
      {versions.isError && <LoadError error={versions.error} what="the history" retry={() => versions.refetch()} />}
      {versions.data && (
        <Table.ScrollContainer minWidth={300}>
          <Table aria-label="Versions" verticalSpacing={4} fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Version</Table.Th>
                <Table.Th>Saved</Table.Th>
                <Table.Th aria-label="Action" />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {versions.data.data.map((v) => (
                <Table.Tr key={v.version}>
                  <Table.Td>
                    {v.version}{' '}
                    <Text span size="xs" c="dimmed">
                      {FORMAT_LABELS[v.format]}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {when(v.createdAt)}
                    <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>
                      {v.createdBy?.email ?? 'API key'}
                    </Text>
                    <Text size="xs" lineClamp={2} style={{ wordBreak: 'break-word' }}>
                      {v.subject}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {v.version === newest ? (
                      <Text size="xs" c="dimmed">
                        Current
                      </Text>
                    ) : (
                      <Button
                        size="compact-xs"
                        variant="default"
                        aria-label={`Restore version ${v.version}`}
                        loading={restore.isPending && restore.variables === v.version}
                        onClick={() => restore.mutate(v.version)}
                      >
                        Restore
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {versions.data && <VersionDiff templateId={templateId} versions={versions.data.data} />}
      {restore.isError && <ErrorMessage error={restore.error} />}
    </Stack>
  );
}

/** "Delete template": refused by the server, naming them, while a campaign or workflow uses it. */
export function DeleteTemplate({ template }: { template: Template }) {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/templates/{id}', { params: { path: { id: template.id } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: [...templateKeys.all(project.id), 'list'] });
      navigate(projectPath(project.id, 'templates'));
    },
  });
  return (
    <Stack gap="xs">
      <Group>
        <Button
          color="red"
          variant="light"
          loading={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete the template "${template.name}"? This cannot be undone.`)) remove.mutate();
          }}
        >
          Delete template
        </Button>
      </Group>
      {remove.isError && <ErrorMessage error={remove.error} />}
    </Stack>
  );
}
