import type { SMTPServerDataStream } from 'smtp-server';
import { MAX_LINE_OCTETS } from '../delivery/mime.ts';
import { smtpError } from './limits.ts';

export type ReadMessage = { ok: true; message: Buffer } | { ok: false; error: Error };

/**
 * A message's DATA, once the client ended it with the final dot. A client that drops before that
 * leaves the promise pending and nothing is written (smtp-server unpipes the stream). Line ends are
 * made CRLF (RFC 5322 §2.3); a message over `maxBytes` → 552, a line over 998 octets → 554.
 */
export function readMessage(stream: SMTPServerDataStream, maxBytes: number): Promise<ReadMessage> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => {
      if (!stream.sizeExceeded) chunks.push(chunk);
    });
    stream.once('error', reject);
    stream.once('end', () => {
      if (stream.sizeExceeded) return resolve({ ok: false, error: smtpError(552, `5.3.4 Message too big: at most ${maxBytes} bytes`) });
      const message = canonical(Buffer.concat(chunks));
      if (hasLongLine(message))
        return resolve({
          ok: false,
          error: smtpError(554, `5.6.0 A line is longer than ${MAX_LINE_OCTETS} octets (RFC 5322 §2.1.1): encode that part as quoted-printable or base64`),
        });
      resolve({ ok: true, message });
    });
  });
}

function canonical(message: Buffer): Buffer {
  if (!/(^|[^\r])\n|\r(?!\n)/.test(message.toString('latin1'))) return message;
  return Buffer.from(message.toString('latin1').replace(/\r\n|\r|\n/g, '\r\n'), 'latin1');
}

function hasLongLine(message: Buffer): boolean {
  let start = 0;
  for (let lf = message.indexOf(0x0a); lf !== -1; lf = message.indexOf(0x0a, start)) {
    if (lf - 1 - start > MAX_LINE_OCTETS) return true;
    start = lf + 1;
  }
  return message.length - start > MAX_LINE_OCTETS;
}
