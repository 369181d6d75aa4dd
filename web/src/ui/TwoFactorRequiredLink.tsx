import { Anchor } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { asApiError } from '../api/errors.ts';

/** Under a TWO_FACTOR_REQUIRED refusal: the way to the account page, where two-factor sign-in is set up. */
export function TwoFactorRequiredLink({ error }: { error: unknown }) {
  const { projectId } = useParams();
  if (asApiError(error)?.code !== 'TWO_FACTOR_REQUIRED' || !projectId) return null;
  return (
    <Anchor component={Link} to={`/p/${projectId}/account`} size="sm">
      Set up two-factor sign-in on your account page
    </Anchor>
  );
}
