import { Group, Stack, Switch, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { useProject } from '../../shell/project.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { type Domain, domainsKey } from './domains.ts';

/**
 * Inbound mail for one domain (PATCH /domains/{id} `{ inbound }`, docs/inbound.md): the switch, and
 * once it is on the MX record that brings the domain's mail to this server.
 */
export function InboundSwitch({ domain }: { domain: Domain }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (inbound: boolean) => call(api.PATCH('/domains/{id}', { params: { path: { id: domain.id } }, body: { inbound } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: domainsKey(project.id) }),
  });
  // The domain's own MX, listed by the API once inbound is on.
  const mx = domain.inbound ? domain.records.find((record) => record.type === 'MX' && record.name === domain.domain) : undefined;
  const refusal = asApiError(toggle.error);

  return (
    <Stack gap="xs">
      <Switch
        label={`Receive mail at ${domain.domain}`}
        description="Mail to any address of this domain is kept, listed under Inbound, and recorded as an email.received event on its sender's contact."
        checked={toggle.isPending ? toggle.variables : domain.inbound}
        disabled={toggle.isPending}
        onChange={(event) => toggle.mutate(event.currentTarget.checked)}
      />
      {refusal?.code === 'DOMAIN_NOT_VERIFIED' ? (
        <Text c="red.8" size="sm" role="alert">
          Only a verified domain can receive mail. Publish its DKIM record above, press "Check now", then turn this on.
        </Text>
      ) : (
        <ErrorMessage error={toggle.error} />
      )}
      {mx && (
        <Stack gap={4} role="group" aria-label={`MX record for the inbound mail of ${domain.domain}`}>
          <Text size="sm">
            Publish this MX record so that mail for {domain.domain} reaches this server. It sends <strong>all</strong> of the domain's mail here: if its mailboxes live at a
            provider, receive at a subdomain instead (such as reply.{domain.domain}, added as a domain of its own).
          </Text>
          <Group gap="xs" wrap="wrap">
            <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
              {mx.name} MX {mx.priority ?? 10} {mx.value}
            </Text>
            <CopyButton value={mx.value} label={`Copy the value of the MX record ${mx.name}`} />
          </Group>
        </Stack>
      )}
    </Stack>
  );
}
