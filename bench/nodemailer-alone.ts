// The `nodemailer-alone` bench's client, run as a child process (the relay stays in the bench
// process, as it does for delivery-rate): nodemailer composes each message, signs it with its own
// `dkim` option and sends it through a pooled SMTP transport. No database, no HTTP. Prints
// `{ sent, seconds }` on stdout.
// `npx tsx bench/nodemailer-alone.ts <port> <messages>`
import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import { SMTP_CONNECTIONS } from '../src/delivery/transport.ts';
import { htmlToText } from '../src/rendering/render.ts';

const [port, count] = process.argv.slice(2).map(Number) as [number, number];
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
// The same pool size as Mailroom's transport; nodemailer's own socket and DKIM signer.
const transport = nodemailer.createTransport({
  host: '127.0.0.1',
  port,
  secure: false,
  pool: true,
  maxConnections: SMTP_CONNECTIONS,
  maxMessages: 1000,
  dkim: { domainName: 'bench.example.test', keySelector: 'mr0123456789', privateKey },
});
// The kind of message delivery-rate sends: a link (rewritten for click tracking), an open pixel and
// the generated text part.
const html = (i: number) =>
  `<p>Hello <a href="https://bench.example.test/r/${i.toString(16).padStart(16, '0')}/0123456789abcdef">there</a></p><img src="https://bench.example.test/o/${i.toString(16).padStart(16, '0')}" width="1" height="1" alt="">`;

const started = performance.now();
let next = 0;
let sent = 0;
await Promise.all(
  Array.from({ length: SMTP_CONNECTIONS * 5 }, async () => {
    while (next < count) {
      const i = next++;
      const body = html(i);
      await transport.sendMail({
        from: { name: 'Bench', address: 'bench@bench.example.test' },
        to: `alone-${i}@bench.test`,
        subject: 'Hello',
        messageId: `<${i}.alone@bench.example.test>`,
        html: body,
        text: htmlToText(body),
      });
      sent++;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
transport.close();
process.stdout.write(`${JSON.stringify({ sent, seconds })}\n`);
