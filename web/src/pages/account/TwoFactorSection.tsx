import { Button, Code, Group, Image, List, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { sessionKeys, useMe } from '../../api/session.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';

/**
 * Two-factor sign-in (docs/security.md): enrol with a QR code (or the secret typed in), confirm
 * with a first code, see the ten recovery codes once, disable with a code or a recovery code.
 */
export function TwoFactorSection() {
  const queryClient = useQueryClient();
  const me = useMe();
  const refresh = () => queryClient.invalidateQueries({ queryKey: sessionKeys.me });
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  const start = useMutation({ mutationFn: () => call(api.POST('/users/@me/totp')) });
  const confirm = useMutation({
    mutationFn: (code: string) => call(api.POST('/users/@me/totp/confirm', { body: { code } })),
    onSuccess: async (result) => {
      setRecoveryCodes(result.recoveryCodes);
      start.reset();
      await refresh();
    },
  });
  const disable = useMutation({
    mutationFn: (value: string) => call(api.POST('/users/@me/totp/disable', { body: /^\d{6}$/.test(value) ? { code: value } : { recoveryCode: value } })),
    onSuccess: async () => {
      setRecoveryCodes(undefined);
      await refresh();
    },
  });
  const enabled = me.data?.twoFactorEnabled === true;
  const codeFrom = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    return String(new FormData(event.currentTarget).get('code')).trim();
  };

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="two-factor-title">
      <Stack maw={560}>
        <Title order={2} size="h4" id="two-factor-title">
          Two-factor sign-in
        </Title>
        <Text size="sm" role="status">
          {enabled ? 'On: logging in asks for a code from your authenticator app.' : 'Off: your password alone logs you in.'}
        </Text>
        {recoveryCodes && (
          <Stack gap="xs">
            <Text size="sm" fw={600}>
              Your recovery codes, shown only now. Keep them somewhere safe: each one logs you in once if you lose your phone.
            </Text>
            <List spacing={2} aria-label="Recovery codes">
              {recoveryCodes.map((code) => (
                <List.Item key={code}>
                  <Code>{code}</Code>
                </List.Item>
              ))}
            </List>
            <Group>
              <CopyButton value={recoveryCodes.join('\n')} label="Copy recovery codes" />
            </Group>
          </Stack>
        )}
        {!enabled && !start.data && (
          <Group>
            <Button onClick={() => start.mutate()} loading={start.isPending}>
              Set up two-factor sign-in
            </Button>
          </Group>
        )}
        {!enabled && start.data && (
          <form onSubmit={(event) => confirm.mutate(codeFrom(event))}>
            <Stack gap="sm">
              <Text size="sm">Scan this QR code with an authenticator app, or type the secret into it, then enter the code it shows.</Text>
              <Image src={start.data.qrCode} alt="QR code of the two-factor secret for your authenticator app" w={200} h={200} />
              <Group gap="xs">
                <Text size="sm">Secret:</Text>
                <Code data-testid="totp-secret">{start.data.secret}</Code>
                <CopyButton value={start.data.secret} label="Copy secret" />
              </Group>
              <TextInput name="code" label="Code from the app" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required maw={200} />
              <ErrorMessage error={confirm.error} />
              <Group>
                <Button type="submit" loading={confirm.isPending}>
                  Turn on
                </Button>
              </Group>
            </Stack>
          </form>
        )}
        {enabled && (
          <form onSubmit={(event) => disable.mutate(codeFrom(event), { onSuccess: () => event.currentTarget?.reset() })}>
            <Stack gap="sm">
              <TextInput name="code" label="Code from the app or a recovery code" autoComplete="off" required maw={320} />
              <ErrorMessage error={disable.error} />
              <Group>
                <Button type="submit" color="red" variant="outline" loading={disable.isPending}>
                  Turn off two-factor sign-in
                </Button>
              </Group>
            </Stack>
          </form>
        )}
        <ErrorMessage error={start.error} />
      </Stack>
    </Paper>
  );
}
