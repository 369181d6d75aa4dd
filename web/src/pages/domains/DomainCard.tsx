import { Button, Group, Modal, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { StatusBadge, type Tone } from '../../ui/StatusBadge.tsx';
import { type DnsRecord, type Domain, domainsKey, fetchDomain } from './domains.ts';
import { InboundSwitch } from './InboundSwitch.tsx';

type RecordState = DnsRecord['state'];

/** Each record's state from the last DNS check (domains.service.ts). */
const RECORD_STATES: Record<RecordState, { label: string; tone: Tone }> = {
  found: { label: 'Found', tone: 'good' },
  wrong_value: { label: 'Wrong value', tone: 'bad' },
  missing: { label: 'Missing', tone: 'warn' },
  not_checked: { label: 'Not checked yet', tone: 'neutral' },
};

const time = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

export function DomainCard({ domain }: { domain: Domain }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const [deleting, del] = useDisclosure(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: domainsKey(project.id) });
  const check = useMutation({ mutationFn: () => fetchDomain(domain.id), onSuccess: refresh });
  const remove = useMutation({ mutationFn: () => call(api.DELETE('/domains/{id}', { params: { path: { id: domain.id } } })), onSuccess: refresh });
  const verified = domain.status === 'verified';

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label={`Domain ${domain.domain}`}>
      <Stack gap="sm">
        <Group justify="space-between" gap="xs">
          <Group gap="xs">
            <Title order={2} size="h4" style={{ wordBreak: 'break-all' }}>
              {domain.domain}
            </Title>
            <StatusBadge tone={verified ? 'good' : 'warn'}>{verified ? 'Verified' : 'Pending'}</StatusBadge>
          </Group>
          <Group gap="xs">
            <Button size="xs" variant="default" onClick={() => check.mutate()} loading={check.isPending} aria-label={`Check now: the DNS of ${domain.domain}`}>
              Check now
            </Button>
            <Button size="xs" variant="subtle" color="red" onClick={del.open} aria-label={`Delete ${domain.domain}`}>
              Delete
            </Button>
          </Group>
        </Group>
        <Text size="xs" c="dimmed">
          Last checked: {time(domain.lastCheckedAt)}
          {verified && ` · verified ${time(domain.verifiedAt)}`}
        </Text>
        <ErrorMessage error={check.error} />
        <Table.ScrollContainer minWidth={640}>
          <Table striped verticalSpacing="xs" aria-label={`DNS records of ${domain.domain}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Type</Table.Th>
                <Table.Th>Name</Table.Th>
                <Table.Th>Value</Table.Th>
                <Table.Th>State</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {domain.records.map((record) => {
                const state = RECORD_STATES[record.state];
                return (
                  <Table.Tr key={record.name + record.value}>
                    <Table.Td>
                      {record.type}
                      {record.priority !== undefined && (
                        <Text size="xs" c="dimmed">
                          priority {record.priority}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Group gap={6} wrap="nowrap">
                        <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
                          {record.name}
                        </Text>
                        <CopyButton value={record.name} label={`Copy the name of the ${record.type} record ${record.name}`} />
                      </Group>
                    </Table.Td>
                    <Table.Td maw={420}>
                      <Group gap={6} wrap="nowrap">
                        <Text size="sm" ff="monospace" lineClamp={2} style={{ wordBreak: 'break-all' }} title={record.value}>
                          {record.value}
                        </Text>
                        <CopyButton value={record.value} label={`Copy the value of the ${record.type} record ${record.name}`} />
                      </Group>
                      {record.note && (
                        <Text size="xs" c="dimmed">
                          {record.note}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Stack gap={4} align="flex-start">
                        <StatusBadge tone={state.tone}>{state.label}</StatusBadge>
                        <Text size="xs" c="dimmed">
                          {record.required ? 'Required' : 'Recommended'}
                        </Text>
                        {record.state === 'wrong_value' && record.found.length > 0 && (
                          <Text size="xs" style={{ wordBreak: 'break-all' }}>
                            Found: {record.found.join(' | ')}
                          </Text>
                        )}
                      </Stack>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <InboundSwitch domain={domain} />
      </Stack>
      <Modal opened={deleting} onClose={del.close} title={`Delete ${domain.domain}?`} centered>
        <Stack>
          <Text size="sm">Its DKIM key is deleted too. Mail from this domain is refused until you add and verify it again.</Text>
          <ErrorMessage error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={del.close}>
              Cancel
            </Button>
            <Button color="red" onClick={() => remove.mutate()} loading={remove.isPending}>
              Delete domain
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
