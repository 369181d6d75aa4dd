import { Alert, Group, List, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { filterPathOf } from '../../ui/conditions/tree.ts';
import { plainFieldMessage } from '../../ui/fieldErrors.ts';
import type { AudienceCheck } from './campaigns.ts';

type AudienceBody = {
  type: 'MARKETING' | 'TRANSACTIONAL';
  audienceType: 'ALL' | 'SEGMENT' | 'FILTERED';
  segmentId?: string | null;
  audienceCondition?: Record<string, unknown> | null;
};

/**
 * The audience check of an audience being edited (POST /campaigns/audience, debounced): who a send
 * started now would mail, and who not and why. A refused condition gives its errors by filter path.
 */
export function useAudienceCheck(projectId: string, body: AudienceBody | undefined) {
  // Debounced as text: the body is a new object at every render.
  const key = body === undefined ? undefined : JSON.stringify(body);
  const [debounced] = useDebouncedValue(key, 400);
  const query = useQuery({
    queryKey: ['campaigns', projectId, 'audience', debounced],
    queryFn: () => call(api.POST('/campaigns/audience', { body: JSON.parse(debounced!) as AudienceBody })),
    enabled: debounced !== undefined,
    placeholderData: keepPreviousData,
    retry: false,
  });
  const error = asApiError(query.error);
  const errors: Record<string, string> = {};
  for (const fieldError of error?.fieldErrors ?? []) {
    const at = filterPathOf(fieldError.field.replace(/^audienceCondition\.?/, ''));
    if (at) errors[at] = plainFieldMessage(fieldError);
  }
  return { check: query.isError ? undefined : query.data, checking: query.isFetching || key !== debounced, error: query.error, errors };
}

const REASONS: { key: keyof AudienceCheck['excluded']; label: string; why: string }[] = [
  { key: 'suppressed', label: 'Suppressed', why: 'on the suppression list after a bounce, a complaint or by hand' },
  { key: 'snoozed', label: 'Snoozed', why: 'paused their subscription for a while' },
  { key: 'unsubscribed', label: 'Unsubscribed', why: 'opted out of marketing mail' },
];

/** What the audience check found, said plainly: who gets it, who does not and why, and a few of those who do. */
export function AudienceCheckPanel({ check, checking, error }: { check: AudienceCheck | undefined; checking: boolean; error: unknown }) {
  const apiError = asApiError(error);
  const excluded = check ? check.total - check.eligible : 0;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="audience-check-title">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4" id="audience-check-title">
            Audience check
          </Title>
          {checking && <Loader size="xs" aria-label="Checking the audience" />}
        </Group>
        {apiError && (
          <Alert color="red" variant="light" role="alert" p="xs">
            {apiError.fieldErrors.length > 0 ? `Fix the audience to check it: ${apiError.fieldErrors.map(plainFieldMessage).join('; ')}` : apiError.message}
          </Alert>
        )}
        {check && (
          <div aria-live="polite">
            <Text size="lg" fw={700} data-testid="eligible">
              {check.eligible.toLocaleString()} contact{check.eligible === 1 ? '' : 's'} will get it
            </Text>
            <Text size="sm" c="dimmed">
              The audience selects {check.total.toLocaleString()}; {excluded.toLocaleString()} will not be mailed.
            </Text>
            <SimpleGrid cols={{ base: 1, xs: 3 }} mt="sm" spacing="xs">
              {REASONS.map((reason) => (
                <Paper key={reason.key} withBorder p="xs" radius="sm" data-testid={`excluded-${reason.key}`}>
                  <Text fw={700}>{check.excluded[reason.key].toLocaleString()}</Text>
                  <Text size="sm" fw={500}>
                    {reason.label}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {reason.why}
                  </Text>
                </Paper>
              ))}
            </SimpleGrid>
            {check.sample.length > 0 && (
              <>
                <Text size="sm" fw={500} mt="sm">
                  Some who will get it
                </Text>
                <List size="sm" aria-label="Some who will get it">
                  {check.sample.map((contact) => (
                    <List.Item key={contact.id} style={{ wordBreak: 'break-all' }}>
                      {contact.email}
                    </List.Item>
                  ))}
                </List>
              </>
            )}
          </div>
        )}
      </Stack>
    </Paper>
  );
}
