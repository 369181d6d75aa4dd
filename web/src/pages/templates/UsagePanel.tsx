import { List, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { templateKeys } from './templates.ts';

/** The campaigns and workflow steps that send this template (what a change or a deletion affects). */
export function UsagePanel({ templateId }: { templateId: string }) {
  const project = useProject();
  const usage = useQuery({
    queryKey: templateKeys.usage(project.id, templateId),
    queryFn: () => call(api.GET('/templates/{id}/usage', { params: { path: { id: templateId } } })),
  });
  const campaigns = usage.data?.campaigns ?? [];
  const workflows = usage.data?.workflows ?? [];
  return (
    <Stack gap="xs" component="section" aria-labelledby="usage-title">
      <Title order={2} size="h4" id="usage-title">
        Used by
      </Title>
      {usage.isPending && <Loading rows={1} label="Loading where the template is used" />}
      {usage.isError && <LoadError error={usage.error} what="where the template is used" retry={() => usage.refetch()} />}
      {usage.data && campaigns.length + workflows.length === 0 && (
        <Text size="sm" c="dimmed">
          No campaign or workflow uses this template. Sends through /v1/send name it by its id.
        </Text>
      )}
      {campaigns.length > 0 && (
        <List size="sm" aria-label="Campaigns using the template">
          {campaigns.map((c) => (
            <List.Item key={c.id}>
              Campaign {c.name} ({c.status.toLowerCase()})
            </List.Item>
          ))}
        </List>
      )}
      {workflows.length > 0 && (
        <List size="sm" aria-label="Workflows using the template">
          {workflows.map((w) => (
            <List.Item key={`${w.id}-${w.stepId}`}>Workflow {w.name}, a send-email step</List.Item>
          ))}
        </List>
      )}
    </Stack>
  );
}
