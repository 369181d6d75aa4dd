import { Button, Group, Radio, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { sessionKeys } from '../../api/session.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { Section } from './Section.tsx';
import { isManager } from './settings.ts';

type Mode = 'all' | 'marketing' | 'off';
type Tracking = { opens: Mode; clicks: Mode };

const MODES: { value: Mode; label: string }[] = [
  { value: 'all', label: 'All mail' },
  { value: 'marketing', label: 'Marketing mail only (campaigns and marketing templates)' },
  { value: 'off', label: 'Off' },
];

function ModeChoice({
  name,
  label,
  description,
  value,
  onChange,
  disabled,
}: {
  name: string;
  label: string;
  description: string;
  value: Mode;
  onChange: (mode: Mode) => void;
  disabled: boolean;
}) {
  return (
    <Radio.Group name={name} label={label} description={description} value={value} onChange={(v) => onChange(v as Mode)}>
      <Stack gap={6} mt="xs">
        {MODES.map((mode) => (
          <Radio key={mode.value} value={mode.value} label={mode.label} disabled={disabled} />
        ))}
      </Stack>
    </Radio.Group>
  );
}

/**
 * Open and click tracking (docs/decisions/sending.md): each on all mail, marketing mail only, or
 * off; OWNER or ADMIN change it. Headless mail is never tracked.
 */
export function TrackingSection() {
  const project = useProject();
  const queryClient = useQueryClient();
  const [tracking, setTracking] = useState<Tracking>(project.tracking);
  const save = useMutation({
    mutationFn: (body: Tracking) => call(api.PATCH('/users/@me/projects/{id}', { params: { path: { id: project.id } }, body: { tracking: body } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionKeys.projects }),
  });
  const may = isManager(project.role);
  const changed = tracking.opens !== project.tracking.opens || tracking.clicks !== project.tracking.clicks;
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    save.mutate(tracking);
  }
  const set = (part: Partial<Tracking>) => {
    save.reset();
    setTracking((current) => ({ ...current, ...part }));
  };
  return (
    <Section
      id="tracking"
      title="Open and click tracking"
      description="What the project counts in the mail it sends. Headless mail is never tracked: it leaves exactly as rendered."
    >
      <form onSubmit={submit} noValidate aria-label="Open and click tracking">
        <Group align="flex-start" gap="xl">
          <ModeChoice
            name="opens"
            label="Opens"
            description="A 1×1 image in the HTML. Left out of transactional mail by default: a pixel in a password reset helps no one."
            value={tracking.opens}
            onChange={(opens) => set({ opens })}
            disabled={!may}
          />
          <ModeChoice
            name="clicks"
            label="Clicks"
            description="Links go through a redirect on this server that counts the click, then sends the reader on."
            value={tracking.clicks}
            onChange={(clicks) => set({ clicks })}
            disabled={!may}
          />
        </Group>
        <Group mt="md" gap="sm">
          <Button type="submit" loading={save.isPending} disabled={!may || !changed}>
            Save tracking
          </Button>
          {save.isSuccess && !changed && (
            <Text size="sm" role="status">
              Tracking saved. It applies to mail sent from now on.
            </Text>
          )}
        </Group>
      </form>
      <ErrorMessage error={save.error} />
      {!may && (
        <Text size="sm" c="dimmed">
          Only an owner or admin can change tracking.
        </Text>
      )}
    </Section>
  );
}
