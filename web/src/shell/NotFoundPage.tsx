import { Anchor, Center, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

export function Component() {
  return (
    <Center component="main" mih="100vh" p="md">
      <Stack align="center">
        <Title order={1}>Page not found</Title>
        <Text>There is no page at this address.</Text>
        <Anchor component={Link} to="/">
          Back to the dashboard
        </Anchor>
      </Stack>
    </Center>
  );
}
