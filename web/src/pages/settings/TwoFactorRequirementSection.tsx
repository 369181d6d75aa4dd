import { Switch, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { sessionKeys } from '../../api/session.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { Section } from './Section.tsx';

/** An OWNER requires two-factor sign-in of every member (docs/security.md). */
export function TwoFactorRequirementSection() {
  const project = useProject();
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (requireTwoFactor: boolean) => call(api.PATCH('/users/@me/projects/{id}', { params: { path: { id: project.id } }, body: { requireTwoFactor } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionKeys.projects }),
  });
  const owner = project.role === 'OWNER';
  return (
    <Section
      id="two-factor-requirement"
      title="Two-factor sign-in"
      description="When required, members without two-factor sign-in cannot open this project in the dashboard until they set it up on their account page. API keys are not affected."
    >
      <Switch
        label="Require two-factor sign-in of every member"
        checked={project.requireTwoFactor}
        disabled={!owner || change.isPending}
        onChange={(event) => change.mutate(event.currentTarget.checked)}
      />
      {!owner && (
        <Text size="xs" c="dimmed">
          Only an owner can change this.
        </Text>
      )}
      <ErrorMessage error={change.error} />
    </Section>
  );
}
