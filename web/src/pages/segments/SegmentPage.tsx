import { Alert, Button, Group, Loader, Modal, Paper, SegmentedControl, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ConditionBuilder } from '../../ui/conditions/ConditionBuilder.tsx';
import { useFieldOptions } from '../../ui/conditions/fields.ts';
import { newTree, type Tree } from '../../ui/conditions/tree.ts';
import { useLiveCount } from '../../ui/conditions/useLiveCount.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { SegmentMembers } from './SegmentMembers.tsx';
import { SegmentUsage } from './SegmentUsage.tsx';
import { type Segment, segmentKeys } from './segments.ts';

type Draft = { name: string; description: string; type: 'DYNAMIC' | 'STATIC'; trackMembership: boolean; condition: Tree };

const draftOf = (segment: Segment): Draft => ({
  name: segment.name,
  description: segment.description ?? '',
  type: segment.type,
  trackMembership: segment.trackMembership,
  condition: (segment.condition as Tree | null) ?? newTree(),
});

/** /p/{id}/segments/new and /p/{id}/segments/{segmentId}: the segment's settings, its condition and its members. */
export function Component() {
  const project = useProject();
  const { segmentId = 'new' } = useParams();
  const isNew = segmentId === 'new';
  const segment = useQuery({
    queryKey: segmentKeys.one(project.id, segmentId),
    queryFn: () => call(api.GET('/segments/{id}', { params: { path: { id: segmentId } } })),
    enabled: !isNew,
  });
  if (!isNew && segment.isError) return <LoadError error={segment.error} what="the segment" retry={() => segment.refetch()} />;
  if (!isNew && !segment.data) return <Loading rows={6} label="Loading the segment" />;
  return <SegmentEditor key={segmentId} segment={segment.data} />;
}

function SegmentEditor({ segment }: { segment: Segment | undefined }) {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => (segment ? draftOf(segment) : { name: '', description: '', type: 'DYNAMIC', trackMembership: false, condition: newTree() }));
  const [confirmDelete, setConfirmDelete] = useState(false);
  const fields = useFieldOptions(project.id, segment?.id);
  const dynamic = draft.type === 'DYNAMIC';
  const live = useLiveCount(project.id, dynamic ? draft.condition : undefined);
  useEffect(() => {
    if (segment) setDraft(draftOf(segment));
  }, [segment]);

  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: draft.name.trim(),
        description: draft.description.trim() || null,
        trackMembership: draft.trackMembership,
        ...(dynamic ? { condition: draft.condition } : {}),
      };
      return segment ? call(api.PATCH('/segments/{id}', { params: { path: { id: segment.id } }, body })) : call(api.POST('/segments', { body: { ...body, type: draft.type } }));
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: segmentKeys.all(project.id) });
      if (!segment) navigate(projectPath(project.id, 'segments', saved.id), { replace: true });
    },
  });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/segments/{id}', { params: { path: { id: segment!.id } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: segmentKeys.all(project.id) });
      navigate(projectPath(project.id, 'segments'));
    },
  });
  const deleteError = asApiError(remove.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    save.mutate();
  }

  return (
    <Stack maw={1100}>
      <PageHeader
        title={segment ? segment.name : 'New segment'}
        description={
          segment
            ? `${segment.type === 'DYNAMIC' ? 'Dynamic' : 'Static'} segment of ${segment.memberCount.toLocaleString()} contact${segment.memberCount === 1 ? '' : 's'} (counted ${new Date(segment.updatedAt).toLocaleString()}).`
            : 'Describe who belongs in it; the count updates as you edit.'
        }
        actions={
          segment && (
            <Button variant="default" color="red" onClick={() => setConfirmDelete(true)}>
              Delete segment
            </Button>
          )
        }
      />
      <form onSubmit={submit} aria-label="Segment">
        <Stack>
          <Group align="flex-start" grow wrap="wrap">
            <TextInput
              label="Name"
              required
              value={draft.name}
              onChange={(e) => setDraft({ ...draft, name: e.currentTarget.value })}
              error={asApiError(save.error)?.field('name')}
              miw={220}
            />
            <TextInput label="Description" value={draft.description} onChange={(e) => setDraft({ ...draft, description: e.currentTarget.value })} miw={220} />
          </Group>
          {!segment && (
            <Stack gap={4}>
              <Text size="sm" fw={500} id="segment-type">
                Type
              </Text>
              <SegmentedControl
                aria-labelledby="segment-type"
                value={draft.type}
                onChange={(type) => setDraft({ ...draft, type: type as Draft['type'] })}
                data={[
                  { value: 'DYNAMIC', label: 'Dynamic: follows a condition' },
                  { value: 'STATIC', label: 'Static: contacts you add' },
                ]}
              />
            </Stack>
          )}
          {dynamic && (
            <Switch
              label="Track membership"
              description="Record when contacts enter and leave, as events workflows can start from."
              checked={draft.trackMembership}
              onChange={(e) => setDraft({ ...draft, trackMembership: e.currentTarget.checked })}
            />
          )}
          {dynamic && (
            <Paper withBorder p="md" radius="md" component="section" aria-label="Condition">
              <Stack>
                <Group justify="space-between">
                  <Text fw={600}>Condition</Text>
                  <Group gap="xs" aria-live="polite">
                    {live.counting && <Loader size="xs" aria-label="Counting" />}
                    <Text fw={600} data-testid="live-count">
                      {live.count === undefined ? 'Not counted yet' : `${live.count.toLocaleString()} contact${live.count === 1 ? '' : 's'} match`}
                    </Text>
                  </Group>
                </Group>
                {fields.loading ? (
                  <Loading rows={2} label="Loading fields" />
                ) : (
                  <ConditionBuilder value={draft.condition} onChange={(condition) => setDraft({ ...draft, condition })} options={fields.options} errors={live.errors} />
                )}
                {live.general && (
                  <Alert color="red" variant="light" role="alert" p="xs">
                    {live.general}
                  </Alert>
                )}
              </Stack>
            </Paper>
          )}
          <ErrorMessage error={save.error} shownFields={['name']} />
          <Group>
            <Button type="submit" loading={save.isPending}>
              {segment ? 'Save segment' : 'Create segment'}
            </Button>
            {save.isSuccess && segment && <Text size="sm">Saved.</Text>}
          </Group>
        </Stack>
      </form>
      {segment && <SegmentMembers segment={segment} />}
      {segment && <SegmentUsage segmentId={segment.id} />}
      <Modal opened={confirmDelete} onClose={() => setConfirmDelete(false)} title={`Delete ${segment?.name ?? 'segment'}?`}>
        <Stack>
          <Text size="sm">The segment goes; its contacts stay. Campaigns already sent to it keep their recipients.</Text>
          {deleteError && (
            <Alert color="red" role="alert" variant="light">
              {deleteError.status === 409
                ? 'A campaign that is a draft, scheduled or sending uses this segment as its audience. Change that campaign’s audience, or delete or send it, then delete the segment.'
                : deleteError.message}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmDelete(false)}>
              Keep it
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete segment
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
