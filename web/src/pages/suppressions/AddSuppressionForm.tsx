import { Button, Group, NativeSelect, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { REASON_LABELS, type Suppression, type SuppressionReason, suppressionKeys } from './suppressions.ts';

const REASONS = Object.entries(REASON_LABELS).map(([value, label]) => ({ value, label }));

/**
 * Suppress one address (every member may: it only ever stops mail). Its contact, if any, is
 * unsubscribed. An address already listed keeps its first entry, which is said back.
 */
export function AddSuppressionForm() {
  const project = useProject();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState<SuppressionReason>('MANUAL');
  const [outcome, setOutcome] = useState<{ entry: Suppression; created: boolean }>();
  const add = useMutation({
    mutationFn: async (body: { email: string; reason: SuppressionReason }) => {
      // 201: newly listed; 200: the address was already listed and keeps its entry.
      let status = 0;
      const entry = await call(api.POST('/suppressions', { body }).then((result) => ((status = result.response.status), result)));
      return { entry, created: status === 201 };
    },
    onSuccess: (result) => {
      setOutcome(result);
      return queryClient.invalidateQueries({ queryKey: suppressionKeys.all(project.id) });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    setOutcome(undefined);
    add.mutate({ email: String(new FormData(form).get('email')).trim(), reason }, { onSuccess: () => form.reset() });
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Suppress an address">
      <Group align="flex-start" gap="xs">
        <TextInput
          name="email"
          type="email"
          label="Address"
          description="It is never sent to again; its contact is unsubscribed."
          placeholder="someone@example.com"
          required
          flex={1}
          miw={220}
          error={asApiError(add.error)?.field('email')}
        />
        <NativeSelect
          label="Reason"
          description="Keep another provider's reason when moving a list."
          data={REASONS}
          value={reason}
          onChange={(e) => setReason(e.currentTarget.value as SuppressionReason)}
          miw={160}
        />
        <Button type="submit" mt={{ base: 0, sm: 45 }} loading={add.isPending}>
          Suppress address
        </Button>
      </Group>
      <ErrorMessage error={add.error} shownFields={['email']} />
      {outcome && (
        <Text size="sm" role="status" mt="xs">
          {outcome.created
            ? `${outcome.entry.email} is suppressed.`
            : `${outcome.entry.email} was already on the list (${REASON_LABELS[outcome.entry.reason].toLowerCase()}, since ${new Date(outcome.entry.createdAt).toLocaleString()}); its entry is kept.`}
        </Text>
      )}
    </form>
  );
}
