import { Button, Menu, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { api, call, setCurrentProject } from '../api/client.ts';
import { asApiError } from '../api/errors.ts';

export function UserMenu({ email }: { email: string }) {
  const navigate = useNavigate();
  const { projectId } = useParams();
  const queryClient = useQueryClient();
  const verification = useMutation({ mutationFn: () => call(api.POST('/auth/request-verification')) });
  async function logOut() {
    await call(api.GET('/auth/logout')).catch(() => undefined);
    setCurrentProject(undefined);
    queryClient.clear();
    navigate('/login', { replace: true });
  }
  return (
    <Menu position="bottom-end" withinPortal width={260}>
      <Menu.Target>
        <Button variant="default" size="compact-md" maw={{ base: 110, sm: 260 }}>
          <Text size="sm" truncate>
            {email}
          </Text>
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{email}</Menu.Label>
        <Menu.Item closeMenuOnClick={false} onClick={() => verification.mutate()} disabled={verification.isPending}>
          Mail me a link to confirm my address
        </Menu.Item>
        {(verification.isSuccess || verification.isError) && (
          <Text size="xs" px="sm" pb="xs" role="status" c={verification.isError ? 'red.8' : undefined}>
            {verification.isError ? asApiError(verification.error)?.message : `Sent to ${email}, unless it is already confirmed.`}
          </Text>
        )}
        {projectId && <Menu.Item onClick={() => navigate(`/p/${projectId}/account`)}>Account: sessions and password</Menu.Item>}
        <Menu.Divider />
        <Menu.Item onClick={logOut}>Log out</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
