import { Alert, Anchor, Center, Stack } from '@mantine/core';
import { Link, useRouteError } from 'react-router';

/** Shown when a page fails to load or throws while rendering. */
export function RouteError() {
  const error = useRouteError();
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  return (
    <Center component="main" mih="100vh" p="md">
      <Stack maw={480}>
        <Alert color="red" title="This page could not be shown" role="alert">
          {message}
        </Alert>
        <Anchor component={Link} to="/">
          Back to the dashboard
        </Anchor>
      </Stack>
    </Center>
  );
}
