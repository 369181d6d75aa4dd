import { Box, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { Outlet } from 'react-router';

/** The frame of the pages used before a project is open: sign-up, log-in, password, new project. */
export function AuthLayout() {
  return (
    <Center component="main" mih="100vh" p="md" bg="gray.0">
      <Stack w="100%" maw={420} gap="lg">
        <Box ta="center">
          <Title order={1} size="h2">
            Mailroom
          </Title>
          <Text c="dimmed" size="sm">
            Email for your product: transactional, campaigns, workflows.
          </Text>
        </Box>
        <Paper withBorder shadow="sm" p="xl" radius="md">
          <Outlet />
        </Paper>
      </Stack>
    </Center>
  );
}
