import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { type Campaign, campaignKeys } from './campaigns.ts';

/**
 * GET /campaigns/{id}/stats, re-read every 2 s while the campaign sends (one query for the page's
 * panels). Keyed by the campaign's status too: the poll stops when sending ends, and the counters
 * are read once more as they stand then, not left at the last poll's.
 */
export function useCampaignStats(campaign: Campaign, live: boolean) {
  const project = useProject();
  return useQuery({
    queryKey: [...campaignKeys.stats(project.id, campaign.id), campaign.status],
    queryFn: async () => (await call(api.GET('/campaigns/{id}/stats', { params: { path: { id: campaign.id } } }))).data,
    refetchInterval: live ? 2000 : false,
  });
}
