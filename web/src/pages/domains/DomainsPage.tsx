import { Button, Group, Stack, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { useProject } from '../../shell/project.ts';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { DomainCard } from './DomainCard.tsx';
import { domainsKey } from './domains.ts';

export function Component() {
  const project = useProject();
  const queryClient = useQueryClient();
  const domains = useQuery({
    queryKey: domainsKey(project.id),
    queryFn: async () => (await call(api.GET('/domains/project/{projectId}', { params: { path: { projectId: project.id } } }))).data,
  });
  const add = useMutation({
    mutationFn: (domain: string) => call(api.POST('/domains', { body: { domain } })),
    onSuccess: async (_created, _domain) => {
      await queryClient.invalidateQueries({ queryKey: domainsKey(project.id) });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    add.mutate(String(new FormData(form).get('domain')).trim(), { onSuccess: () => form.reset() });
  }

  return (
    <Stack maw={1100}>
      <PageHeader
        title="Domains"
        description="Mail is sent only from a domain you verify: publish its DKIM record so receivers can check the signature. SPF and DMARC records are recommended."
      />
      <form onSubmit={submit} noValidate aria-label="Add a domain">
        <Stack gap="xs">
          <Group align="flex-start" gap="xs">
            <TextInput name="domain" label="Domain" placeholder="mail.example.com" required flex={1} miw={220} error={asApiError(add.error)?.field('domain')} />
            <Button type="submit" loading={add.isPending} mt={25}>
              Add domain
            </Button>
          </Group>
          <ErrorMessage error={add.error} shownFields={['domain']} />
        </Stack>
      </form>
      {domains.isPending && <Loading rows={3} label="Loading domains" />}
      {domains.isError && <LoadError error={domains.error} what="the domains" retry={() => domains.refetch()} />}
      {domains.data?.length === 0 && <EmptyState title="No domain yet">Add the domain you send from, such as mail.example.com.</EmptyState>}
      {domains.data?.map((domain) => (
        <DomainCard key={domain.id} domain={domain} />
      ))}
    </Stack>
  );
}
