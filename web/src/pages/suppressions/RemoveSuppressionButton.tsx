import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { REASON_LABELS, type Suppression, suppressionKeys } from './suppressions.ts';

/**
 * Removes an address from the list after a confirmation that says what follows: the address may be
 * mailed again, and its contact's subscription stays as it is. OWNER and ADMIN only (the API
 * answers 403 to a MEMBER), so the button is disabled for the others.
 */
export function RemoveSuppressionButton({ entry, allowed }: { entry: Suppression; allowed: boolean }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/suppressions/{email}', { params: { path: { email: entry.email } } })),
    onSuccess: async () => {
      setOpen(false);
      await queryClient.invalidateQueries({ queryKey: suppressionKeys.all(project.id) });
    },
  });
  const warning =
    entry.reason === 'MANUAL'
      ? 'It may be mailed again from the next send.'
      : `It was listed for a ${REASON_LABELS[entry.reason].toLowerCase()}: mailing it again can hurt your sending reputation. It may be mailed again from the next send.`;
  return (
    <>
      <Button size="xs" variant="subtle" color="red" disabled={!allowed} onClick={() => (remove.reset(), setOpen(true))} aria-label={`Remove ${entry.email}`}>
        Remove
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={`Remove ${entry.email} from the list?`} centered>
        <Stack>
          <Text size="sm">{warning}</Text>
          <Text size="sm">Its contact stays unsubscribed if it was: campaigns and marketing mail still skip it, transactional mail goes out.</Text>
          <ErrorMessage error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button color="red" onClick={() => remove.mutate()} loading={remove.isPending}>
              Remove from list
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
