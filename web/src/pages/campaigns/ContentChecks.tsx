import { Alert, List, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import type { Check } from '../templates/templates.ts';
import type { Campaign } from './campaigns.ts';

/** Light alerts' titles in the text colour: an orange title on its light background falls under WCAG AA contrast. */
const READABLE_TITLE = { title: { color: 'var(--mantine-color-text)' } };

/** The checks of the saved campaign's content (docs/campaigns.md, "Checks before sending"), read again after each save. */
export function useCampaignChecks(campaign: Campaign) {
  const project = useProject();
  return useQuery({
    queryKey: ['campaigns', project.id, 'checks', campaign.id, campaign.updatedAt],
    queryFn: async () => (await call(api.POST('/campaigns/{id}/preview', { params: { path: { id: campaign.id } }, body: {} }))).checks,
  });
}

/** The checks as a list, each saying where; advice, so the words ask rather than refuse. */
export function ContentChecks({ checks, label = 'Checks before sending' }: { checks: Check[]; label?: string }) {
  if (checks.length === 0) return null;
  return (
    <Alert color="orange" variant="light" p="xs" title={label} styles={READABLE_TITLE}>
      <List size="sm" aria-label={label}>
        {checks.map((check, index) => (
          <List.Item key={`${check.code}-${index}`}>
            <strong>{check.where}</strong>: {check.message}
          </List.Item>
        ))}
      </List>
      <Text size="xs" mt={4}>
        These are advice: you can still send it.
      </Text>
    </Alert>
  );
}
