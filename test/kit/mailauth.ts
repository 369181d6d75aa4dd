import { Resolver } from 'node:dns/promises';
import { authenticate } from 'mailauth';
import type { DnsServer } from './dns.ts';

export type Verdicts = { dkim: string; dkimDomain: string | undefined; spf: string; dmarc: string; detail: string };

/**
 * What a receiving server concludes about a message (DKIM, SPF, DMARC) with mailauth, looking the
 * records up in the test DNS server, for a message that came from `ip` with MAIL FROM `sender`.
 */
export function receiver(dns: DnsServer) {
  const resolver = new Resolver({ timeout: 5000, tries: 2 });
  resolver.setServers([dns.address]);
  const resolve = (name: string, type: string) => resolver.resolve(name, type as 'TXT') as Promise<unknown>;
  return async (raw: Buffer, envelope: { ip: string; sender: string }): Promise<Verdicts> => {
    const result = (await authenticate(raw, {
      ip: envelope.ip,
      helo: 'relay.example.test',
      sender: envelope.sender,
      mta: 'mx.example.test',
      resolver: resolve as never,
      disableArc: true,
      disableBimi: true,
    })) as any;
    const signature = result.dkim?.results?.[0];
    return {
      dkim: signature?.status?.result ?? 'none',
      dkimDomain: signature?.signingDomain,
      spf: result.spf?.status?.result ?? 'none',
      dmarc: result.dmarc?.status?.result ?? 'none',
      detail: JSON.stringify({ dkim: signature?.status, spf: result.spf?.status, dmarc: result.dmarc?.status }),
    };
  };
}
