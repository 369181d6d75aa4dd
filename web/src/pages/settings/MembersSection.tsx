import { Button, Group, Modal, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { sessionKeys, useMe } from '../../api/session.ts';
import { useProject } from '../../shell/project.ts';
import { DataTable } from '../../ui/DataTable.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Section } from './Section.tsx';
import { isManager, ROLES, type Role } from './settings.ts';

type Member = { userId: string; email: string; role: Role; createdAt: string };

const ROLE_HELP =
  'OWNER: everything, including deleting the project. ADMIN: everything but the OWNER role, reset and delete. MEMBER: reads everything and works with contacts, templates and campaigns, but cannot manage members, keys, billing, webhooks or the project.';

/** Which roles the user may grant: only an OWNER grants OWNER. */
const grantable = (mine: Role) => (mine === 'OWNER' ? ROLES : ROLES.filter((r) => r !== 'OWNER'));

/** Whether the user may change this member's role: an OWNER, or granting OWNER, is for an OWNER. */
const mayChangeRole = (mine: Role, member: Member) => isManager(mine) && (mine === 'OWNER' || member.role !== 'OWNER');

function MemberRole({ member }: { member: Member }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (role: Role) => call(api.PATCH('/projects/{id}/members/{userId}', { params: { path: { id: project.id, userId: member.userId } }, body: { role } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['members', project.id] }),
  });
  const may = mayChangeRole(project.role, member);
  return (
    <NativeSelect
      aria-label={`Role of ${member.email}`}
      data={may ? grantable(project.role) : [member.role]}
      value={member.role}
      disabled={!may || change.isPending}
      onChange={(event) => change.mutate(event.currentTarget.value as Role)}
      error={change.error ? asApiError(change.error)?.message : undefined}
      miw={120}
    />
  );
}

/** Remove a member, or leave (anyone may leave), after a confirmation. */
function MemberAccess({ member, me }: { member: Member; me: string }) {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [removing, setRemoving] = useState(false);
  const self = member.userId === me;
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/projects/{id}/members/{userId}', { params: { path: { id: project.id, userId: member.userId } } })),
    onSuccess: async () => {
      setRemoving(false);
      if (!self) return queryClient.invalidateQueries({ queryKey: ['members', project.id] });
      await queryClient.invalidateQueries({ queryKey: sessionKeys.projects });
      navigate('/');
    },
  });
  return (
    <>
      <Button size="xs" variant="subtle" color="red" onClick={() => (remove.reset(), setRemoving(true))} disabled={!self && !mayChangeRole(project.role, member)}>
        {self ? 'Leave' : 'Remove'}
      </Button>
      <Modal opened={removing} onClose={() => setRemoving(false)} title={self ? `Leave ${project.name}?` : `Remove ${member.email}?`} centered>
        <Stack>
          <Text size="sm">{self ? 'You lose access to this project at once. An owner or admin can add you again.' : `${member.email} loses access to this project at once.`}</Text>
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
    </>
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
  // 201: the account is a member now; 202: the address has no account and was sent an invitation.
  const invite = useMutation({
    mutationFn: (body: { email: string; role: Role }) => call(api.POST('/projects/{id}/members', { params: { path: { id: project.id } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['members', project.id] }),
  });
  const invited = invite.data && 'invited' in invite.data ? invite.data : undefined;
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
            description="No account yet? They are sent an invitation."
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
      {invited && (
        <Text size="sm" role="status">
          {invited.email} has no account yet: an invitation is on its way. They join as {invited.role} once they sign up and confirm the address.
        </Text>
      )}
      {!may && (
        <Text size="sm" c="dimmed">
          Your role ({project.role}) can see the members. Only an owner or admin adds, changes or removes them; you can leave the project.
        </Text>
      )}
      {members.isPending && <Loading rows={2} label="Loading members" />}
      {members.isError && <LoadError error={members.error} what="the members" retry={() => members.refetch()} />}
      {members.data && me.data && (
        <DataTable
          label="Members"
          minWidth={520}
          rows={members.data}
          rowKey={(m) => m.userId}
          busy={members.isFetching}
          columns={[
            {
              key: 'email',
              header: 'Email',
              cell: (m) => (
                <span style={{ wordBreak: 'break-all' }}>
                  {m.email}{' '}
                  {m.userId === me.data.id && (
                    <Text span c="dimmed" size="sm">
                      (you)
                    </Text>
                  )}
                </span>
              ),
            },
            { key: 'role', header: 'Role', cell: (m) => <MemberRole member={m} /> },
            { key: 'since', header: 'Since', cell: (m) => new Date(m.createdAt).toLocaleDateString() },
            { key: 'access', header: 'Access', cell: (m) => <MemberAccess member={m} me={me.data.id} /> },
          ]}
        />
      )}
    </Section>
  );
}
