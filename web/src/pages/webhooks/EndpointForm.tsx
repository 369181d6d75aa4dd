import { Button, Group, Stack, Textarea, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { asApiError } from '../../api/errors.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { EventsPicker } from './EventsPicker.tsx';
import type { EndpointInput } from './webhooks.ts';

type Props = {
  initial?: EndpointInput;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (input: EndpointInput) => void;
  onCancel: () => void;
};

/** URL, events and description of an endpoint; the server's refusals show on their fields. */
export function EndpointForm({ initial, submitLabel, pending, error, onSubmit, onCancel }: Props) {
  const [events, setEvents] = useState<string[]>(initial?.events ?? []);
  const apiError = asApiError(error);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const description = String(form.get('description') ?? '').trim();
    onSubmit({ url: String(form.get('url') ?? '').trim(), events, description: description || undefined });
  }
  return (
    <form onSubmit={submit} noValidate aria-label={submitLabel}>
      <Stack gap="sm">
        <TextInput
          name="url"
          label="Endpoint URL"
          description="An https address of your server that accepts POST requests."
          placeholder="https://example.com/webhooks/mailroom"
          defaultValue={initial?.url}
          required
          data-autofocus
          error={apiError?.field('url')}
        />
        <EventsPicker value={events} onChange={setEvents} error={apiError?.field('events')} />
        <Textarea
          name="description"
          label="Description"
          placeholder="Order service, production"
          defaultValue={initial?.description}
          autosize
          minRows={1}
          maxRows={4}
          error={apiError?.field('description')}
        />
        <ErrorMessage error={error} shownFields={['url', 'events', 'description']} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={pending}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
