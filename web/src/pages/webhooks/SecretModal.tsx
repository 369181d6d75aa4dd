import { Alert, Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { CopyButton } from '../../ui/CopyButton.tsx';

/**
 * A signing secret, shown once: the API answers it only at creation and rotation, so the page
 * keeps it in memory until this dialog closes and never again.
 */
export function SecretModal({ secret, title, note, onClose }: { secret: string | undefined; title: string; note?: string; onClose: () => void }) {
  return (
    <Modal opened={secret !== undefined} onClose={onClose} title={title} centered size="lg">
      <Stack>
        <Alert color="red" title="Copy it now">
          This signing secret is shown only once. Store it with your server's configuration to verify the webhook-signature header.
          {note && (
            <Text size="sm" mt={4}>
              {note}
            </Text>
          )}
        </Alert>
        <Group gap="xs" wrap="nowrap" align="center">
          <Code flex={1} style={{ wordBreak: 'break-all' }} aria-label="Signing secret">
            {secret}
          </Code>
          <CopyButton value={secret ?? ''} label="Copy the signing secret" />
        </Group>
        <Group justify="flex-end">
          <Button onClick={onClose}>I have stored it</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
