import { Alert, Anchor, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import type { Draft } from './campaigns.ts';

type Props = { draft: Draft; set: (patch: Partial<Draft>) => void; saveError: unknown };

/** Step 2: who it comes from. Only verified domains can send; pending ones link to their DNS records. */
export function SenderStep({ draft, set, saveError }: Props) {
  const project = useProject();
  const domains = useQuery({
    queryKey: ['domains', project.id, 'sender'],
    queryFn: () => call(api.GET('/domains/project/{projectId}', { params: { path: { projectId: project.id } } })),
  });
  const verified = (domains.data?.data ?? []).filter((d) => d.status === 'verified');
  const pending = (domains.data?.data ?? []).filter((d) => d.status === 'pending');
  const error = asApiError(saveError);
  const domainChoices = [...new Set([...verified.map((d) => d.domain), ...(draft.fromDomain ? [draft.fromDomain] : [])])];
  return (
    <Stack maw={640}>
      {domains.data && verified.length === 0 && (
        <Alert color="yellow" title="No verified domain yet">
          A campaign is sent from an address at a domain you have verified.{' '}
          <Anchor component={Link} to={projectPath(project.id, 'domains')}>
            Add or verify a domain
          </Anchor>
          .
        </Alert>
      )}
      <Group align="flex-start" gap="xs" wrap="wrap">
        <TextInput
          label="From address"
          description="The part before the @"
          required
          value={draft.fromLocal}
          onChange={(e) => set({ fromLocal: e.currentTarget.value })}
          error={error?.field('from')}
          flex="1 1 160px"
        />
        <NativeSelect
          label="Domain"
          description="Verified domains"
          value={draft.fromDomain}
          onChange={(e) => set({ fromDomain: e.currentTarget.value })}
          data={[{ value: '', label: 'Choose a domain', disabled: true }, ...domainChoices.map((d) => ({ value: d, label: `@${d}` }))]}
          flex="1 1 200px"
        />
      </Group>
      {pending.length > 0 && (
        <Text size="sm">
          Waiting for DNS:{' '}
          {pending.map((d, i) => (
            <span key={d.id}>
              {i > 0 && ', '}
              <Anchor component={Link} to={projectPath(project.id, 'domains')}>
                {d.domain}
              </Anchor>
            </span>
          ))}
          . Publish their records to send from them.
        </Text>
      )}
      <TextInput
        label="Sender name"
        description="Shown before the address, e.g. “Ada from Acme”"
        value={draft.fromName}
        onChange={(e) => set({ fromName: e.currentTarget.value })}
        error={error?.field('fromName')}
      />
      <TextInput label="Reply-to address" type="email" value={draft.replyTo} onChange={(e) => set({ replyTo: e.currentTarget.value })} error={error?.field('replyTo')} />
    </Stack>
  );
}
