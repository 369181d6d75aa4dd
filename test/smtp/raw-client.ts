import { connect, type Socket } from 'node:net';

/**
 * A bare SMTP client over a socket, for protocol edges no library client produces: replies are
 * read as they come (multi-line replies joined), commands written exactly as given, several at
 * once for pipelining (RFC 2920).
 */
export class RawSmtp {
  private buffer = '';
  private readonly replies: string[] = [];
  private waiting: Array<() => void> = [];
  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('latin1');
      let end: number;
      // A reply ends at a line "NNN text" (a space after the code, RFC 5321 §4.2.1).
      while ((end = this.buffer.search(/^\d{3}(?: [^\r\n]*)?\r\n/m)) !== -1) {
        const lineEnd = this.buffer.indexOf('\r\n', end) + 2;
        this.replies.push(this.buffer.slice(0, lineEnd).trimEnd());
        this.buffer = this.buffer.slice(lineEnd);
      }
      const waiting = this.waiting;
      this.waiting = [];
      for (const wake of waiting) wake();
    });
    socket.on('error', () => {});
  }

  static async open(port: number): Promise<RawSmtp> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const client = new RawSmtp(socket);
    await client.reply(); // the greeting
    return client;
  }

  /** The next reply (its last line carries the code). */
  async reply(timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (this.replies.length === 0) {
      if (this.socket.destroyed) throw new Error('the connection closed');
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no SMTP reply within ${timeoutMs} ms`)), Math.max(0, deadline - Date.now()));
        this.waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.replies.shift()!;
  }

  write(text: string | Buffer): void {
    this.socket.write(text);
  }

  /** Sends one command and returns its reply. */
  async command(line: string): Promise<string> {
    this.write(`${line}\r\n`);
    return this.reply();
  }

  /** EHLO, then AUTH PLAIN with `password` (any username); returns the AUTH reply. */
  async login(password: string): Promise<string> {
    await this.command('EHLO client.example.test');
    return this.command(`AUTH PLAIN ${Buffer.from(`\0app\0${password}`).toString('base64')}`);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The last line's code and text of a reply. */
export const codeOf = (reply: string) => reply.split('\r\n').at(-1)!.slice(0, 3);
