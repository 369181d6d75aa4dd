import type { SMTPServerSession } from 'smtp-server';

/** An SMTP refusal: `code` and its text (with the RFC 3463 enhanced code first), as smtp-server sends it. */
export function smtpError(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code });
}

/** Open connections per client address, each listener's own (docs/smtp.md: 20 at most). */
export class ConnectionsPerAddress {
  private readonly open = new Map<string, number>();
  constructor(private readonly max: number) {}

  /** Counts the connection in, or returns false when its address already holds `max`. */
  enter(session: SMTPServerSession): boolean {
    const count = this.open.get(session.remoteAddress) ?? 0;
    if (count >= this.max) return false;
    this.open.set(session.remoteAddress, count + 1);
    (session as SMTPServerSession & { counted?: boolean }).counted = true;
    return true;
  }

  leave(session: SMTPServerSession): void {
    if (!(session as SMTPServerSession & { counted?: boolean }).counted) return;
    const count = (this.open.get(session.remoteAddress) ?? 1) - 1;
    if (count <= 0) this.open.delete(session.remoteAddress);
    else this.open.set(session.remoteAddress, count);
  }
}

/**
 * Messages per project per minute in this process (a fixed window), the API's RATE_LIMIT_PER_MINUTE:
 * over it, MAIL FROM gets 421 4.7.0 with the seconds to wait.
 */
export class ProjectMessageRate {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(private readonly perMinute: number) {}

  /** Takes one message; returns 0, or the seconds until the project's window opens again. */
  take(projectId: string, now = Date.now()): number {
    let window = this.windows.get(projectId);
    if (!window || now - window.start >= 60_000) {
      if (this.windows.size > 10_000) this.windows.clear();
      window = { start: now, count: 0 };
      this.windows.set(projectId, window);
    }
    if (window.count >= this.perMinute) return Math.ceil((window.start + 60_000 - now) / 1000);
    window.count++;
    return 0;
  }
}

/** Loopback clients (the same machine) may authenticate without TLS (docs/smtp.md). */
export const isLoopback = (address: string) => address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
