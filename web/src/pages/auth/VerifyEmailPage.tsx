import { Alert, Anchor, Button, Stack, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { usePageTitle } from '../../ui/usePageTitle.ts';

/**
 * The page the verification mail links to (`/verify-email?token=…`). The token is used on a click,
 * not on load: mail scanners that open links must not spend it.
 */
export function Component() {
  usePageTitle('Confirm your email address');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const verify = useMutation({ mutationFn: () => call(api.POST('/auth/verify-email', { body: { token } })) });
  return (
    <Stack>
      <Title order={2} size="h3">
        Confirm your email address
      </Title>
      {verify.isSuccess ? (
        <Alert color="teal" role="status" title="Address confirmed">
          {verify.data.email} is confirmed.
        </Alert>
      ) : (
        <>
          <Text size="sm">Confirm that this address belongs to your Mailroom account.</Text>
          <Button onClick={() => verify.mutate()} loading={verify.isPending} disabled={!token}>
            Confirm my address
          </Button>
          <ErrorMessage error={verify.error} />
        </>
      )}
      <Anchor component={Link} to="/" size="sm">
        Go to the dashboard
      </Anchor>
    </Stack>
  );
}
