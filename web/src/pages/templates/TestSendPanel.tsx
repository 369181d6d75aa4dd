import { Alert, Anchor, Button, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { useMe } from '../../api/session.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';

type Props = {
  templateId: string;
  /** Saves unsaved changes first (the test sends the saved template); false when saving failed. */
  saveFirst: () => Promise<boolean>;
  dirty: boolean;
  /** The contact the preview shows: the test renders with their data. */
  contactId: string | undefined;
};

/** "Send test": one copy of the saved template, [Test] in the subject, to an address or to the user. */
export function TestSendPanel({ templateId, saveFirst, dirty, contactId }: Props) {
  const project = useProject();
  const me = useMe();
  const [email, setEmail] = useState('');
  const send = useMutation({
    mutationFn: async (to: string) => {
      if (!(await saveFirst())) return undefined;
      return call(api.POST('/templates/{id}/test', { params: { path: { id: templateId } }, body: { ...(to ? { email: to } : {}), contactId } }));
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    send.mutate(email.trim());
  }
  const apiError = asApiError(send.error);
  const sent = send.data?.data;
  return (
    <Stack gap="xs" component="section" aria-labelledby="test-send-title">
      <Title order={2} size="h4" id="test-send-title">
        Send a test
      </Title>
      <form onSubmit={submit} noValidate aria-label="Send a test">
        <Stack gap="xs">
          <TextInput
            label="Test recipient"
            description={`Leave empty to send it to yourself${me.data ? ` (${me.data.email})` : ''}. The subject starts with [Test]; the previewed contact's data fills it.`}
            type="email"
            placeholder={me.data?.email ?? 'you@example.com'}
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={apiError?.field('email') ?? (apiError?.details?.field === 'email' ? apiError.message : undefined)}
          />
          <Group gap="xs">
            <Button type="submit" variant="default" loading={send.isPending}>
              {dirty ? 'Save and send test' : 'Send test'}
            </Button>
          </Group>
          {!apiError?.field('email') && apiError?.details?.field !== 'email' && <ErrorMessage error={send.error} shownFields={['email']} />}
          {sent && (
            <Alert color="teal" variant="light" p="xs" role="status">
              <Text size="sm">
                {send.data?.message}{' '}
                <Anchor component={Link} to={projectPath(project.id, 'emails', sent.emailId)}>
                  Follow the test email
                </Anchor>
              </Text>
            </Alert>
          )}
        </Stack>
      </form>
    </Stack>
  );
}
