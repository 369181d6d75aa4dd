import { Button, Group, NumberInput, Progress, SimpleGrid, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Section } from './Section.tsx';
import { isManager } from './settings.ts';

const CATEGORIES = [
  { key: 'transactional', label: 'Transactional', help: 'emails sent through /v1/send' },
  { key: 'campaigns', label: 'Campaigns', help: 'campaign emails' },
  { key: 'workflows', label: 'Workflows', help: 'workflow emails' },
] as const;
type Category = (typeof CATEGORIES)[number]['key'];
type Limits = Record<Category, number | null>;

function Usage({ label, used, limit }: { label: string; used: number; limit: number | null }) {
  const share = limit ? Math.min(100, (100 * used) / limit) : 0;
  return (
    <Stack gap={4}>
      <Group justify="space-between" gap="xs">
        <Text size="sm" fw={600}>
          {label}
        </Text>
        <Text size="sm">{limit === null ? `${used.toLocaleString()} sent · no limit` : `${used.toLocaleString()} of ${limit.toLocaleString()}`}</Text>
      </Group>
      <Progress
        value={share}
        color={share >= 100 ? 'red.9' : share >= 80 ? 'orange.9' : 'indigo.9'}
        aria-label={`${label}: ${limit === null ? `${used} sent, no limit` : `${used} of ${limit} used`}`}
      />
    </Stack>
  );
}

/** Monthly caps per category (empty: unlimited) and this month's consumption against them. */
export function BillingSection() {
  const project = useProject();
  const queryClient = useQueryClient();
  const path = { params: { path: { id: project.id } } };
  const limits = useQuery({ queryKey: ['billing-limits', project.id], queryFn: () => call(api.GET('/users/@me/projects/{id}/billing-limits', path)) });
  const usage = useQuery({ queryKey: ['billing-consumption', project.id], queryFn: () => call(api.GET('/users/@me/projects/{id}/billing-consumption', path)) });
  const [draft, setDraft] = useState<Partial<Limits>>({});
  const save = useMutation({
    mutationFn: (body: Limits) => call(api.PUT('/users/@me/projects/{id}/billing-limits', { ...path, body })),
    onSuccess: async (saved) => {
      queryClient.setQueryData(['billing-limits', project.id], saved);
      setDraft({});
      await queryClient.invalidateQueries({ queryKey: ['billing-consumption', project.id] });
    },
  });
  const may = isManager(project.role);
  const apiError = asApiError(save.error);
  const value = (key: Category) => (key in draft ? draft[key] : limits.data?.[key]) ?? null;
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    save.mutate({ transactional: value('transactional'), campaigns: value('campaigns'), workflows: value('workflows') });
  }

  return (
    <Section id="billing" title="Billing limits" description="Monthly caps per kind of email. A send over its cap is refused with 429 until the month ends or the cap is raised.">
      {(limits.isPending || usage.isPending) && <Loading rows={3} label="Loading billing" />}
      {limits.isError && <LoadError error={limits.error} what="the billing limits" retry={() => limits.refetch()} />}
      {usage.isError && <LoadError error={usage.error} what="this month's consumption" retry={() => usage.refetch()} />}
      {usage.data && (
        <Stack gap="sm" aria-label="This month's consumption" role="group">
          <Text size="xs" c="dimmed">
            {new Date(usage.data.periodStart).toLocaleDateString()} – {new Date(usage.data.periodEnd).toLocaleDateString()}
          </Text>
          {CATEGORIES.map((c) => (
            <Usage key={c.key} label={c.label} used={usage.data[c.key].used} limit={usage.data[c.key].limit} />
          ))}
        </Stack>
      )}
      {limits.data && (
        <form onSubmit={submit} noValidate aria-label="Set monthly limits">
          <Stack gap="xs">
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              {CATEGORIES.map((c) => (
                <NumberInput
                  key={c.key}
                  label={`${c.label} per month`}
                  description={`${c.help}; empty: no limit`}
                  placeholder="No limit"
                  min={0}
                  allowDecimal={false}
                  thousandSeparator=","
                  value={value(c.key) ?? ''}
                  onChange={(v) => setDraft((d) => ({ ...d, [c.key]: v === '' ? null : Number(v) }))}
                  disabled={!may}
                  error={apiError?.field(c.key)}
                />
              ))}
            </SimpleGrid>
            <Group>
              <Button type="submit" loading={save.isPending} disabled={!may}>
                Save limits
              </Button>
              {save.isSuccess && (
                <Text size="sm" role="status">
                  Limits saved.
                </Text>
              )}
            </Group>
            <ErrorMessage error={save.error} shownFields={CATEGORIES.map((c) => c.key)} />
            {!may && (
              <Text size="sm" c="dimmed">
                Only an owner or admin can change the limits.
              </Text>
            )}
          </Stack>
        </form>
      )}
    </Section>
  );
}
