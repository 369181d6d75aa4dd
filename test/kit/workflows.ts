import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from './http.ts';

export type ReceivedRequest = { method: string; path: string; headers: IncomingMessage['headers']; body: string; at: number };

/**
 * A real HTTP server on 127.0.0.1 standing in for a customer's webhook endpoint. `respond` decides
 * each answer (default 200 `ok`); every request is kept.
 */
export async function startReceiver(respond?: (request: ReceivedRequest, response: ServerResponse) => void | Promise<void>) {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      requests.push(received);
      if (respond) await respond(received, res);
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Polls until `check` returns a value (not undefined/false), failing after `timeoutMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A workflow built over HTTP: create, add steps in order, chain them from the TRIGGER, optionally enable. */
export async function buildWorkflow(
  api: Client,
  input: { name?: string; eventName: string; allowReentry?: boolean },
  steps: Array<{ type: string; config?: Record<string, unknown>; name?: string }> = [],
) {
  const created = await api.post('/workflows', { name: input.name ?? 'Flow', eventName: input.eventName, allowReentry: input.allowReentry });
  assert.equal(created.status, 201, created.text);
  const workflow = created.body;
  const trigger = workflow.steps.find((s: { type: string }) => s.type === 'TRIGGER');
  const ids: string[] = [];
  let previous = trigger.id;
  for (const step of steps) {
    const added = await api.post(`/workflows/${workflow.id}/steps`, step);
    assert.equal(added.status, 201, added.text);
    ids.push(added.body.id);
    if (previous) await connect(api, workflow.id, previous, added.body.id);
    // After a CONDITION or EXIT the caller wires the branches itself.
    previous = step.type === 'CONDITION' || step.type === 'EXIT' ? undefined : added.body.id;
  }
  return { id: workflow.id as string, triggerId: trigger.id as string, stepIds: ids };
}

export async function connect(api: Client, workflowId: string, fromStepId: string, toStepId: string, branch?: string) {
  const res = await api.post(`/workflows/${workflowId}/transitions`, { fromStepId, toStepId, ...(branch ? { branch } : {}) });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export async function enable(api: Client, workflowId: string) {
  const res = await api.patch(`/workflows/${workflowId}`, { enabled: true });
  assert.equal(res.status, 200, res.text);
}

/** The contact's executions of a workflow (any status). */
export async function executionsOf(api: Client, workflowId: string, contactId?: string) {
  const res = await api.get(`/workflows/${workflowId}/executions?limit=100`);
  assert.equal(res.status, 200, res.text);
  return (res.body.data as Array<{ id: string; contactId: string; status: string }>).filter((e) => !contactId || e.contactId === contactId);
}

/** Waits until the contact has an execution in one of `statuses`, and returns it with its step records. */
export async function waitForExecution(api: Client, workflowId: string, contactId: string, statuses: string[], timeoutMs = 20_000) {
  const found = await eventually(
    `an execution in ${statuses.join('/')}`,
    async () => (await executionsOf(api, workflowId, contactId)).find((e) => statuses.includes(e.status)),
    timeoutMs,
  );
  const detail = await api.get(`/workflows/${workflowId}/executions/${found.id}`);
  assert.equal(detail.status, 200, detail.text);
  return detail.body;
}

export async function track(api: Client, email: string, event: string, data?: Record<string, unknown>) {
  const res = await api.post('/v1/track', { email, event, ...(data ? { data } : {}) });
  assert.equal(res.status, 200, res.text);
  return res.body.data as { contact: string; event: string };
}
