import { Alert } from '@mantine/core';
import { asApiError } from '../api/errors.ts';
import { plainFieldMessage } from './fieldErrors.ts';
import { TwoFactorRequiredLink } from './TwoFactorRequiredLink.tsx';

/**
 * The server's answer to a failed action, placed next to the control that caused it. Field errors
 * the form shows on its own fields are left out (`shownFields`).
 */
export function ErrorMessage({ error, shownFields = [] }: { error: unknown; shownFields?: string[] }) {
  const apiError = asApiError(error);
  if (!apiError) return null;
  const others = apiError.fieldErrors.filter((e) => !shownFields.some((f) => e.field === f || e.field.startsWith(`${f}.`)));
  const coveredByFields = apiError.fieldErrors.length > 0 && others.length === 0;
  if (coveredByFields) return null;
  return (
    <Alert color="red" role="alert" variant="light" p="xs">
      {apiError.message}
      {others.map((e) => (
        <div key={e.field}>
          {e.field}: {plainFieldMessage(e)}
        </div>
      ))}
      {apiError.suggestion && <div>{apiError.suggestion}</div>}
      <TwoFactorRequiredLink error={error} />
    </Alert>
  );
}
