import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { path: string; headers: IncomingHttpHeaders; body: string; at: number; answeredAt?: number };
export type Reply = { status: number; body?: string; delayMs?: number; headers?: Record<string, string> };

/**
 * A real HTTP server standing for a customer's webhook endpoint: it records every request and
 * answers what `respond` says (default 200). `url(path)` is its address on `host`.
 */
export async function startReceiver(respond: (request: Received) => Reply | Promise<Reply> = () => ({ status: 200 }), host = '127.0.0.1') {
  const received: Received[] = [];
  const waiters: Array<{ count: number; path?: string; resolve: () => void }> = [];
  const countFor = (path?: string) => received.filter((r) => path === undefined || r.path === path).length;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const request: Received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(request);
      for (const waiter of [...waiters]) {
        if (countFor(waiter.path) >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      const reply = await respond(request);
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      if (res.destroyed) return;
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? '', () => (request.answeredAt = Date.now()));
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    received,
    url: (path = '/hook') => `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    /** Resolves once `count` requests (to `path`, if given) arrived; rejects after `timeoutMs`. */
    waitFor(count: number, path?: string, timeoutMs = 20_000): Promise<void> {
      if (countFor(path) >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${countFor(path)} of ${count} deliveries${path ? ` to ${path}` : ''} arrived in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ count, path, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
