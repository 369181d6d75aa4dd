import { Grid, NativeSelect, Paper, Radio, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { ConditionBuilder } from '../../ui/conditions/ConditionBuilder.tsx';
import { useFieldOptions } from '../../ui/conditions/fields.ts';
import { newTree } from '../../ui/conditions/tree.ts';
import { AudienceCheckPanel, useAudienceCheck } from './AudienceCheckPanel.tsx';
import { audienceOf, type Draft } from './campaigns.ts';

type Props = { draft: Draft; set: (patch: Partial<Draft>) => void };

/** Step 3: who gets it (everyone, a segment, or a filter made with the segment builder), checked live. */
export function AudienceStep({ draft, set }: Props) {
  const project = useProject();
  const segments = useQuery({ queryKey: ['segments', project.id, 'list'], queryFn: () => call(api.GET('/segments')) });
  const fields = useFieldOptions(project.id);
  const audience = useAudienceCheck(project.id, draft.audienceType === 'SEGMENT' && !draft.segmentId ? undefined : audienceOf(draft));
  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, md: 7 }}>
        <Stack>
          <Radio.Group label="Kind of mail" value={draft.type} onChange={(type) => set({ type: type as Draft['type'] })}>
            <Stack gap={6} mt={6}>
              <Radio value="MARKETING" label="Marketing: only subscribed contacts get it, with an unsubscribe link" />
              <Radio value="TRANSACTIONAL" label="Transactional: every contact in the audience who is not suppressed (account and service notices)" />
            </Stack>
          </Radio.Group>
          <Radio.Group
            label="Audience"
            value={draft.audienceType}
            onChange={(value) =>
              set({ audienceType: value as Draft['audienceType'], ...(value === 'FILTERED' && !draft.audienceCondition ? { audienceCondition: newTree() } : {}) })
            }
          >
            <Stack gap={6} mt={6}>
              <Radio value="ALL" label="All contacts" />
              <Radio value="SEGMENT" label="A segment" />
              <Radio value="FILTERED" label="Contacts matching a filter" />
            </Stack>
          </Radio.Group>
          {draft.audienceType === 'SEGMENT' && (
            <NativeSelect
              label="Segment"
              value={draft.segmentId}
              onChange={(e) => set({ segmentId: e.currentTarget.value })}
              data={[
                { value: '', label: 'Choose a segment', disabled: true },
                ...(segments.data ?? []).map((s) => ({ value: s.id, label: `${s.name} (${s.memberCount.toLocaleString()})` })),
              ]}
            />
          )}
          {draft.audienceType === 'FILTERED' && draft.audienceCondition && (
            <Paper withBorder p="md" radius="md" component="section" aria-label="Filter">
              <Text fw={600} mb="xs">
                Filter
              </Text>
              <ConditionBuilder value={draft.audienceCondition} onChange={(audienceCondition) => set({ audienceCondition })} options={fields.options} errors={audience.errors} />
            </Paper>
          )}
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 5 }}>
        <AudienceCheckPanel check={audience.check} checking={audience.checking} error={audience.error} />
      </Grid.Col>
    </Grid>
  );
}
