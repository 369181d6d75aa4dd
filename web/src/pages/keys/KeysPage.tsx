import { Alert, Button, Code, Group, Modal, Paper, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { sessionKeys } from '../../api/session.ts';
import { useProject } from '../../shell/project.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { maskKey } from '../overview/curl.ts';
import { NamedKeysSection } from './NamedKeysSection.tsx';
import { SmtpCard } from './SmtpCard.tsx';

function KeyRow({ title, description, value }: { title: string; description: string; value: string }) {
  const [revealed, setRevealed] = useState(false);
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label={title}>
      <Stack gap="xs">
        <Title order={2} size="h4">
          {title}
        </Title>
        <Text size="sm" c="dimmed">
          {description}
        </Text>
        <Group gap="xs" wrap="nowrap" align="center">
          <Code flex={1} style={{ wordBreak: 'break-all' }} aria-label={`${title} value`}>
            {revealed ? value : maskKey(value)}
          </Code>
          <Button
            size="compact-sm"
            variant="default"
            onClick={() => setRevealed((r) => !r)}
            aria-pressed={revealed}
            aria-label={`${revealed ? 'Hide' : 'Reveal'} the ${title.toLowerCase()}`}
          >
            {revealed ? 'Hide' : 'Reveal'}
          </Button>
          <CopyButton value={value} label={`Copy the ${title.toLowerCase()}`} />
        </Group>
      </Stack>
    </Paper>
  );
}

export function Component() {
  const project = useProject();
  const queryClient = useQueryClient();
  const [confirming, confirm] = useDisclosure(false);
  const rotate = useMutation({
    mutationFn: () => call(api.POST('/users/@me/projects/{id}/regenerate-keys', { params: { path: { id: project.id } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: sessionKeys.projects });
      confirm.close();
    },
  });
  const mayManage = project.role === 'OWNER' || project.role === 'ADMIN';

  return (
    <Stack maw={900}>
      <PageHeader
        title="API keys"
        description="The public key tracks events from browsers and apps. The secret key sends email and manages everything else: keep it on your server."
        actions={
          mayManage && (
            <Button color="red" variant="outline" onClick={confirm.open}>
              Rotate keys
            </Button>
          )
        }
      />
      {rotate.isSuccess && (
        <Alert color="teal" role="status" title="Keys rotated">
          New keys are shown below. The old ones no longer work.
        </Alert>
      )}
      {project.publicKey && project.secretKey ? (
        <>
          <KeyRow key={project.publicKey} title="Public key" description="For POST /v1/track. Safe to ship in client-side code." value={project.publicKey} />
          <KeyRow
            key={project.secretKey}
            title="Secret key"
            description="For /v1/send and every other endpoint. Never put it in a browser or a mobile app."
            value={project.secretKey}
          />
        </>
      ) : (
        <Alert color="gray" title="Keys hidden">
          Your role ({project.role}) does not show this project's keys. An owner or admin can see and rotate them.
        </Alert>
      )}
      {mayManage && <NamedKeysSection />}
      <SmtpCard />
      <Modal opened={confirming} onClose={confirm.close} title="Rotate both keys?" centered>
        <Stack>
          <Text size="sm">
            New public and secret keys are made, and <strong>the old keys stop working at once</strong>: every server and app that uses them gets 401 until you deploy the new keys.
          </Text>
          <ErrorMessage error={rotate.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={confirm.close}>
              Cancel
            </Button>
            <Button color="red" onClick={() => rotate.mutate()} loading={rotate.isPending}>
              Rotate keys now
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
