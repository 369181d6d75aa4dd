import { Button, Group, Modal, NativeSelect, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { sessionKeys, useMe } from '../../api/session.ts';
import { useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { TableScroll } from '../../ui/TableScroll.tsx';
import { Section } from './Section.tsx';
import { isManager, ROLES, type Role } from './settings.ts';

type Member = { userId: string; email: string; role: Role; createdAt: string };

const ROLE_HELP =
  'OWNER: everything, including deleting the project. ADMIN: everything but the OWNER role, reset and delete. MEMBER: reads everything and works with contacts, templates and campaigns, but cannot manage members, keys, billing, webhooks or the project.';

/** Which roles the user may grant: only an OWNER grants OWNER. */
const grantable = (mine: Role) => (mine === 'OWNER' ? ROLES : ROLES.filter((r) => r !== 'OWNER'));

function MemberRow({ member, me }: { member: Member; me: string }) {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [removing, setRemoving] = useState(false);
  const self = member.userId === me;
  const path = { params: { path: { id: project.id, userId: member.userId } } };
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['members', project.id] });
  const change = useMutation({ mutationFn: (role: Role) => call(api.PATCH('/projects/{id}/members/{userId}', { ...path, body: { role } })), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/projects/{id}/members/{userId}', path)),
    onSuccess: async () => {
      setRemoving(false);
      if (!self) return refresh();
      await queryClient.invalidateQueries({ queryKey: sessionKeys.projects });
      navigate('/');
    },
  });
  // Changing an OWNER, or granting OWNER, is for an OWNER; anyone may leave.
  const mayChange = isManager(project.role) && (project.role === 'OWNER' || member.role !== 'OWNER');
  return (
    <Table.Tr>
      <Table.Td style={{ wordBreak: 'break-all' }}>
        {member.email}{' '}
        {self && (
          <Text span c="dimmed" size="sm">
            (you)
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <NativeSelect
          aria-label={`Role of ${member.email}`}
          data={mayChange ? grantable(project.role) : [member.role]}
          value={member.role}
          disabled={!mayChange || change.isPending}
          onChange={(event) => change.mutate(event.currentTarget.value as Role)}
          error={change.error ? asApiError(change.error)?.message : undefined}
          miw={120}
        />
      </Table.Td>
      <Table.Td>{new Date(member.createdAt).toLocaleDateString()}</Table.Td>
      <Table.Td>
        <Button size="xs" variant="subtle" color="red" onClick={() => (remove.reset(), setRemoving(true))} disabled={!self && !mayChange}>
          {self ? 'Leave' : 'Remove'}
        </Button>
        <Modal opened={removing} onClose={() => setRemoving(false)} title={self ? `Leave ${project.name}?` : `Remove ${member.email}?`} centered>
          <Stack>
            <Text size="sm">
              {self ? 'You lose access to this project at once. An owner or admin can add you again.' : `${member.email} loses access to this project at once.`}
            </Text>
            <ErrorMessage error={remove.error} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setRemoving(false)}>
                Cancel
              </Button>
              <Button color="red" onClick={() => remove.mutate()} loading={remove.isPending}>
                {self ? 'Leave project' : 'Remove member'}
              </Button>
            </Group>
          </Stack>
        </Modal>
      </Table.Td>
    </Table.Tr>
  );
}

/** Members with their roles: invite, change role, remove (OWNER or ADMIN). */
export function MembersSection() {
  const project = useProject();
  const me = useMe();
  const queryClient = useQueryClient();
  const [role, setRole] = useState<string>('MEMBER');
  const members = useQuery({
    queryKey: ['members', project.id],
    queryFn: async () => (await call(api.GET('/projects/{id}/members', { params: { path: { id: project.id } } }))).data,
  });
  const invite = useMutation({
    mutationFn: (body: { email: string; role: Role }) => call(api.POST('/projects/{id}/members', { params: { path: { id: project.id } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['members', project.id] }),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    invite.mutate({ email: String(new FormData(form).get('email')).trim(), role: role as Role }, { onSuccess: () => form.reset() });
  }
  const may = isManager(project.role);
  const apiError = asApiError(invite.error);
  return (
    <Section id="members" title="Members" description={ROLE_HELP}>
      <form onSubmit={submit} noValidate aria-label="Add a member">
        <Group align="flex-start" gap="xs">
          <TextInput
            name="email"
            type="email"
            label="Email"
            description="They need an account first."
            placeholder="colleague@example.com"
            required
            flex={1}
            miw={220}
            disabled={!may}
            error={apiError?.field('email')}
          />
          <NativeSelect
            label="Role"
            description="What they may do."
            data={grantable(project.role)}
            value={role}
            onChange={(e) => setRole(e.currentTarget.value)}
            disabled={!may}
            miw={120}
          />
          <Button type="submit" mt={45} loading={invite.isPending} disabled={!may}>
            Add member
          </Button>
        </Group>
      </form>
      <ErrorMessage error={invite.error} shownFields={['email']} />
      {!may && (
        <Text size="sm" c="dimmed">
          Your role ({project.role}) can see the members. Only an owner or admin adds, changes or removes them; you can leave the project.
        </Text>
      )}
      {members.isPending && <Loading rows={2} label="Loading members" />}
      {members.isError && <LoadError error={members.error} what="the members" retry={() => members.refetch()} />}
      {members.data && me.data && (
        <TableScroll minWidth={520} label="Members">
          <Table verticalSpacing="xs" aria-label="Members">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Email</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>Since</Table.Th>
                <Table.Th>
                  <Text span size="sm" fw={700}>
                    Access
                  </Text>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {members.data.map((member) => (
                <MemberRow key={member.userId} member={member} me={me.data.id} />
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
    </Section>
  );
}
