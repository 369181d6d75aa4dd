import { Alert, Button, Group, Stack, Stepper, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { AudienceStep } from './AudienceStep.tsx';
import { ContentStep } from './ContentStep.tsx';
import { bodyOf, type Campaign, campaignKeys, type Draft, draftOf, EMPTY_DRAFT } from './campaigns.ts';
import { SenderStep } from './SenderStep.tsx';
import { SendStep } from './SendStep.tsx';

const STEPS = ['Content', 'Sender', 'Audience', 'Test and send'];
// Which step shows each field the server may refuse, so a refusal opens the step to fix it.
const STEP_OF_FIELD: Record<string, number> = { name: 0, subject: 0, body: 0, templateId: 0, from: 1, fromName: 1, replyTo: 1, audienceCondition: 2, segmentId: 2 };

/** A DRAFT or SCHEDULED campaign (or a new one) edited in steps; saved on every step change. */
export function CampaignEditor({ campaign }: { campaign: Campaign | undefined }) {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => (campaign ? draftOf(campaign) : EMPTY_DRAFT));
  const [saved, setSaved] = useState<Draft | undefined>(campaign ? draftOf(campaign) : undefined);
  const [params] = useSearchParams();
  const [step, setStep] = useState(() => Math.min(3, Math.max(0, Number(params.get('step')) || 0)));
  // The step a save of a new campaign was made to reach: its page opens there.
  const target = useRef<number>(undefined);
  const dirty = JSON.stringify(draft) !== JSON.stringify(saved);

  const save = useMutation({
    mutationFn: (input: Draft) =>
      campaign ? call(api.PUT('/campaigns/{id}', { params: { path: { id: campaign.id } }, body: bodyOf(input) })) : call(api.POST('/campaigns', { body: bodyOf(input) })),
    onSuccess: async (result, input) => {
      setSaved(input);
      await queryClient.invalidateQueries({ queryKey: campaignKeys.all(project.id) });
      if (!campaign) navigate(`${projectPath(project.id, 'campaigns', result.data.id)}?step=${target.current ?? step}`, { replace: true });
    },
    onError: (error) => {
      const field = (error as { fieldErrors?: { field: string }[] }).fieldErrors?.[0]?.field.split('.')[0];
      if (field && STEP_OF_FIELD[field] !== undefined) setStep(STEP_OF_FIELD[field]!);
    },
  });
  const set = (patch: Partial<Draft>) => {
    setDraft((current) => ({ ...current, ...patch }));
    if (save.error) save.reset();
  };

  async function saveFirst(): Promise<boolean> {
    if (!dirty && campaign) return true;
    try {
      await save.mutateAsync(draft);
      return true;
    } catch {
      return false;
    }
  }
  // The last step needs a saved campaign: go there by saving.
  async function goTo(next: number) {
    target.current = next;
    if (next === 3 && !(await saveFirst())) return;
    setStep(next);
  }

  return (
    <Stack>
      {campaign?.status === 'SCHEDULED' && campaign.scheduledFor && (
        <Alert color="blue" title="Scheduled">
          It goes out on {new Date(campaign.scheduledFor).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' })} (your time). Edit it until then, send it now or
          change the time below.
        </Alert>
      )}
      <Stepper active={step} onStepClick={(s) => void goTo(s)} size="sm" aria-label="Campaign steps">
        {STEPS.map((label) => (
          <Stepper.Step key={label} label={label} />
        ))}
      </Stepper>
      {step === 0 && <ContentStep draft={draft} set={set} saveError={save.error} />}
      {step === 1 && <SenderStep draft={draft} set={set} saveError={save.error} />}
      {step === 2 && <AudienceStep draft={draft} set={set} />}
      {step === 3 && campaign && <SendStep campaign={campaign} saveFirst={saveFirst} />}
      {step === 3 && !campaign && <Text>Saving…</Text>}
      <ErrorMessage error={save.error} shownFields={['name', 'subject', 'body', 'from', 'fromName', 'replyTo']} />
      <Group justify="space-between">
        <Group>
          {step > 0 && (
            <Button variant="default" onClick={() => setStep(step - 1)}>
              Back
            </Button>
          )}
          {step < 3 && <Button onClick={() => void goTo(step + 1)}>Next: {STEPS[step + 1]}</Button>}
        </Group>
        <Group>
          {dirty && (
            <Text size="sm" c="dimmed">
              Unsaved changes
            </Text>
          )}
          <Button variant="default" loading={save.isPending} disabled={!dirty && !!campaign} onClick={() => void saveFirst()}>
            Save draft
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}
