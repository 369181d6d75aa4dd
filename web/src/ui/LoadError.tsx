import { Alert, Button, Stack } from '@mantine/core';
import { asApiError } from '../api/errors.ts';
import { TwoFactorRequiredLink } from './TwoFactorRequiredLink.tsx';

/** A query that failed: what could not be loaded, the server's reason, and a retry. */
export function LoadError({ error, what, retry }: { error: unknown; what: string; retry?: () => void }) {
  const apiError = asApiError(error);
  return (
    <Alert color="red" title={`Could not load ${what}`} role="alert">
      <Stack gap="xs" align="flex-start">
        {apiError?.message}
        <TwoFactorRequiredLink error={error} />
        {retry && (
          <Button size="xs" variant="white" color="red" onClick={retry}>
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}
