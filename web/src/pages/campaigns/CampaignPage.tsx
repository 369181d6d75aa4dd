import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { CampaignEditor } from './CampaignEditor.tsx';
import { CampaignReport } from './CampaignReport.tsx';
import { type Campaign, campaignKeys, editable, STATUS_LABELS, STATUS_TONES } from './campaigns.ts';
import { ProgressPanel } from './ProgressPanel.tsx';

/**
 * /p/{id}/campaigns/new and /p/{id}/campaigns/{campaignId}: a DRAFT or SCHEDULED campaign is
 * edited in steps; a SENDING one shows its progress (re-read every second); a SENT or CANCELLED
 * one its results and recipients.
 */
export function Component() {
  const project = useProject();
  const { campaignId = 'new' } = useParams();
  const isNew = campaignId === 'new';
  const campaign = useQuery({
    queryKey: campaignKeys.one(project.id, campaignId),
    queryFn: async () => (await call(api.GET('/campaigns/{id}', { params: { path: { id: campaignId } } }))).data,
    enabled: !isNew,
    refetchInterval: (query) => (query.state.data?.status === 'SENDING' ? 1000 : false),
  });
  if (!isNew && campaign.isError) return <LoadError error={campaign.error} what="the campaign" retry={() => campaign.refetch()} />;
  if (!isNew && !campaign.data) return <Loading rows={6} label="Loading the campaign" />;
  const data = campaign.data;
  return (
    <Stack maw={1200}>
      <PageHeader
        title={data ? data.name : 'New campaign'}
        description={data ? <Described campaign={data} /> : 'Write it, choose the sender and who gets it, check the audience, then send or schedule it.'}
        actions={data && <Actions campaign={data} />}
      />
      {(!data || editable(data.status)) && <CampaignEditor key={`${campaignId}:${data?.status}`} campaign={data} />}
      {data?.status === 'SENDING' && <ProgressPanel campaign={data} />}
      {data && !editable(data.status) && <CampaignReport campaign={data} live={data.status === 'SENDING'} />}
    </Stack>
  );
}

function Described({ campaign }: { campaign: Campaign }) {
  return (
    <Group gap="xs" component="span">
      <StatusBadge tone={STATUS_TONES[campaign.status]}>{STATUS_LABELS[campaign.status]}</StatusBadge>
      <Text size="sm" component="span" style={{ wordBreak: 'break-word' }}>
        “{campaign.subject}” from {campaign.from}
        {campaign.sentAt ? `, sent ${new Date(campaign.sentAt).toLocaleString()}` : ''}
      </Text>
    </Group>
  );
}

function Actions({ campaign }: { campaign: Campaign }) {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const duplicate = useMutation({
    mutationFn: () => call(api.POST('/campaigns/{id}/duplicate', { params: { path: { id: campaign.id } } })),
    onSuccess: async (copy) => {
      await queryClient.invalidateQueries({ queryKey: campaignKeys.all(project.id) });
      navigate(projectPath(project.id, 'campaigns', copy.data.id));
    },
  });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/campaigns/{id}', { params: { path: { id: campaign.id } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: campaignKeys.all(project.id) });
      navigate(projectPath(project.id, 'campaigns'));
    },
  });
  const deleteError = asApiError(remove.error);
  return (
    <>
      <Button variant="default" loading={duplicate.isPending} onClick={() => duplicate.mutate()}>
        Duplicate
      </Button>
      <Button variant="default" color="red" onClick={() => setConfirmDelete(true)}>
        Delete
      </Button>
      <Modal opened={confirmDelete} onClose={() => setConfirmDelete(false)} title={`Delete ${campaign.name}?`}>
        <Stack>
          <Text size="sm">{campaign.status === 'SCHEDULED' ? 'It will not be sent. ' : ''}The campaign and its results go; the emails already sent stay in the activity log.</Text>
          {deleteError && (
            <Alert color="red" role="alert" variant="light">
              {deleteError.status === 409 ? 'It is sending now. Cancel the sending first, then delete it.' : deleteError.message}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmDelete(false)}>
              Keep it
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete campaign
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
