import type { ProjectSummary } from '../../api/session.ts';

export type CurlExample = { title: string; note: string; command: string; shown: string };

export function maskKey(key: string): string {
  return key.length <= 10 ? '•'.repeat(key.length) : `${key.slice(0, 7)}${'•'.repeat(12)}${key.slice(-4)}`;
}

const quote = (value: unknown) => `'${JSON.stringify(value).replaceAll("'", "'\\''")}'`;

/**
 * Commands a new user pastes into a terminal, with this project's own keys. The secret key is
 * masked on screen; the copied command holds it in full.
 */
export function curlExamples(origin: string, project: ProjectSummary, verifiedDomain: string | undefined): CurlExample[] {
  const publicKey = project.publicKey ?? 'pk_…';
  const secretKey = project.secretKey ?? 'sk_…';
  const from = `hello@${verifiedDomain ?? 'your-domain.example'}`;
  const track = [
    `curl -s ${origin}/v1/track \\`,
    `  -H 'Authorization: Bearer ${publicKey}' -H 'content-type: application/json' \\`,
    `  -d ${quote({ email: 'ada@example.com', event: 'signed-up', data: { plan: 'pro' } })}`,
  ].join('\n');
  const send = (key: string) =>
    [
      `curl -s ${origin}/v1/send \\`,
      `  -H 'Authorization: Bearer ${key}' -H 'content-type: application/json' \\`,
      `  -d ${quote({ to: 'ada@example.com', from, subject: 'Welcome aboard', body: '<p>Hello {{data.plan ?? "friend"}}!</p>' })}`,
    ].join('\n');
  return [
    {
      title: 'Track an event',
      note: 'With the public key, safe in a browser: creates the contact ada@example.com and records the event.',
      command: track,
      shown: track,
    },
    {
      title: 'Send an email',
      note: verifiedDomain
        ? `With the secret key (keep it on your server), from your verified domain ${verifiedDomain}. The copied command holds the full key.`
        : 'With the secret key (keep it on your server). Verify a domain first: mail is sent only from a verified domain.',
      command: send(secretKey),
      shown: send(project.secretKey ? maskKey(project.secretKey) : secretKey),
    },
  ];
}
