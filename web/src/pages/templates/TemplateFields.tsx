import { NativeSelect, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { asApiError } from '../../api/errors.ts';
import { type Draft, type SyntaxErrorAt, TEMPLATE_TYPES, type TemplateType, TYPE_LABELS } from './templates.ts';

/** The message for a field: its field error, a flat "<field> is required", or the 403 of an unverified sender. */
export function fieldMessage(error: unknown, field: string): string | undefined {
  const apiError = asApiError(error);
  if (!apiError) return undefined;
  const own = apiError.field(field);
  if (own) return own;
  if (apiError.message === `${field} is required`) return 'Required.';
  if (field === 'from' && apiError.code === 'SENDER_DOMAIN_NOT_VERIFIED') return apiError.message;
  return undefined;
}

export const FIELDS = ['name', 'description', 'subject', 'body', 'from', 'fromName', 'replyTo', 'type'];

type Props = {
  draft: Draft;
  set: <K extends keyof Draft>(key: K, value: Draft[K]) => void;
  /** The last save's failure. */
  error: unknown;
  /** A syntax error in the subject (from the preview or the save). */
  subjectSyntax?: SyntaxErrorAt;
};

/** Name, type, subject and sender of a template; the server's refusals show on their fields. */
export function TemplateFields({ draft, set, error, subjectSyntax }: Props) {
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <TextInput label="Name" required value={draft.name} onChange={(e) => set('name', e.currentTarget.value)} error={fieldMessage(error, 'name')} maxLength={200} />
        <NativeSelect
          label="Type"
          description="Marketing mail goes to subscribed contacts only."
          value={draft.type}
          onChange={(e) => set('type', e.currentTarget.value as TemplateType)}
          data={TEMPLATE_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))}
          error={fieldMessage(error, 'type')}
        />
      </SimpleGrid>
      <TextInput
        label="Subject"
        description="Liquid placeholders work here too, e.g. {{ data.firstName ?? &quot;there&quot; }}."
        required
        value={draft.subject}
        onChange={(e) => set('subject', e.currentTarget.value)}
        error={subjectSyntax?.message ?? fieldMessage(error, 'subject')}
      />
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        <TextInput
          label="From address"
          description="On a verified domain."
          required
          type="email"
          autoComplete="off"
          placeholder="hello@mail.example.com"
          value={draft.from}
          onChange={(e) => set('from', e.currentTarget.value)}
          error={fieldMessage(error, 'from')}
        />
        <TextInput
          label="Sender name"
          description="Shown as the sender."
          placeholder="Acme"
          value={draft.fromName}
          onChange={(e) => set('fromName', e.currentTarget.value)}
          error={fieldMessage(error, 'fromName')}
        />
        <TextInput
          label="Reply-to address"
          description="Optional, any domain."
          type="email"
          autoComplete="off"
          value={draft.replyTo}
          onChange={(e) => set('replyTo', e.currentTarget.value)}
          error={fieldMessage(error, 'replyTo')}
        />
      </SimpleGrid>
      <Textarea
        label="Description"
        description="For your team; not sent."
        autosize
        minRows={1}
        maxRows={4}
        value={draft.description}
        onChange={(e) => set('description', e.currentTarget.value)}
        error={fieldMessage(error, 'description')}
      />
    </Stack>
  );
}
