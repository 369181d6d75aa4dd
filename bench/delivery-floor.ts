// `npx tsx bench/delivery-floor.ts`: CPU per delivered message in each library stage, without a
// database or HTTP (docs/decisions/sending.md, "Throughput"). The relay runs in a child process,
// which reports its own CPU, as the bench's relay does beside the server.
import { fork } from 'node:child_process';
import { constants, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { composeMessage, dkimSign, type MessageInput } from '../src/delivery/mime.ts';
import { SmtpTransport } from '../src/delivery/transport.ts';
import { startSmtpCounter } from './smtp-counter.ts';

const MESSAGES = 4_000;
const RELAY_PORT = 52_527;

if (process.argv[2] === 'relay') {
  // The child: counts messages, and reports its CPU per message when asked.
  const relay = await startSmtpCounter(RELAY_PORT);
  let since = process.cpuUsage();
  process.on('message', async (command) => {
    if (command === 'reset') since = process.cpuUsage();
    else {
      process.send!({ ms: cpuMs(process.cpuUsage(since)), received: relay.count() });
      await relay.close();
      process.exit(0);
    }
  });
  process.send!('ready');
} else {
  await main();
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

/** CPU milliseconds per message that `work` spends, thread pool included (process-wide). */
async function perMessage(work: () => Promise<unknown>): Promise<number> {
  const since = process.cpuUsage();
  await work();
  return Math.round((cpuMs(process.cpuUsage(since)) / MESSAGES) * 1000) / 1000;
}

async function main() {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const key = { domainName: 'example.com', selector: 'mr', privateKey };
  const html =
    '<p>Hello <a href="https://example.com/r/0123456789abcdef/0123456789abcdef">there</a></p><img src="https://example.com/o/0123456789abcdef" width="1" height="1" alt="">';
  const input = (i: number): MessageInput => ({
    messageId: `<${i}@example.com>`,
    from: { address: 'bench@example.com', name: null },
    to: { address: `floor-${i}@bench.test`, name: null },
    replyTo: null,
    subject: 'Hello',
    html,
    text: 'Hello there [https://example.com/r/0123456789abcdef/0123456789abcdef]',
    headers: {},
    attachments: [],
  });

  const composed: Buffer[] = [];
  for (let i = 0; i < 500; i++) await composeMessage(input(i)); // warm-up
  const composeMs = await perMessage(async () => {
    for (let i = 0; i < MESSAGES; i++) composed.push(await composeMessage(input(i)));
  });
  const signed: Buffer[] = [];
  // In chunks of 100, as the worker signs (the thread pool works on a chunk at once).
  const dkimMs = await perMessage(async () => {
    for (let i = 0; i < MESSAGES; i += 100) signed.push(...(await Promise.all(composed.slice(i, i + 100).map((message) => dkimSign(message, key)))));
  });
  const keyObject = createPrivateKey(privateKey);
  const rsaMs = await perMessage(async () => {
    for (let i = 0; i < MESSAGES; i++) sign('sha256', composed[i]!.subarray(0, 300), { key: keyObject, padding: constants.RSA_PKCS1_PADDING });
  });

  const relay = fork(fileURLToPath(import.meta.url), ['relay'], { execArgv: ['--import', 'tsx'] });
  await new Promise((resolve) => relay.once('message', resolve));
  const transport = new SmtpTransport(`smtp://127.0.0.1:${RELAY_PORT}`);
  await transport.deliver({ id: 'warm-up', from: 'bench@example.com', to: 'warm-up@bench.test', raw: signed[0]! });
  relay.send('reset');
  let next = 0;
  const smtpClientMs = await perMessage(() =>
    Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < MESSAGES) {
          const i = next++;
          const outcome = await transport.deliver({ id: String(i), from: 'bench@example.com', to: `floor-${i}@bench.test`, raw: signed[i]!, messageId: `<${i}@example.com>` });
          if (outcome.kind !== 'delivered') throw new Error(`the relay refused message ${i}: ${JSON.stringify(outcome)}`);
        }
      }),
    ),
  );
  transport.close();
  const relayReport = await new Promise<{ ms: number; received: number }>((resolve) => {
    relay.once('message', (report) => resolve(report as { ms: number; received: number }));
    relay.send('report');
  });
  const relayMs = Math.round((relayReport.ms / MESSAGES) * 1000) / 1000;
  const totalMs = Math.round((composeMs + dkimMs + smtpClientMs + relayMs) * 1000) / 1000;
  const cores = 2;
  console.log(
    JSON.stringify({
      composeMs,
      dkimMs,
      rawRsaMs: rsaMs,
      smtpClientMs,
      relayMs,
      totalMs,
      ceilingOn2CoresPerSecond: Math.round((cores * 1000) / totalMs),
      ceilingRatioToRawSigning: Math.round((rsaMs / totalMs) * cores * 1000) / 1000,
    }),
  );
}
