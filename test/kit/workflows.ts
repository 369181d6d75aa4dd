import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from './http.ts';
import { typedClient } from './mailroom.ts';

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

/** A workflow built over HTTP (the typed client): create, add steps in order, chain them from the TRIGGER, optionally enable. */
export async function buildWorkflow(
  api: Client,
  input: { name?: string; eventName: string; allowReentry?: boolean },
  steps: Array<{ type: string; config?: Record<string, unknown>; name?: string }> = [],
) {
  const mailroom = typedClient(api);
  const created = await mailroom.POST('/workflows', { body: { name: input.name ?? 'Flow', eventName: input.eventName, allowReentry: input.allowReentry } });
  assert.equal(created.response.status, 201);
  const workflow = created.data!;
  const trigger = workflow.steps.find((s) => s.type === 'TRIGGER')!;
  const ids: string[] = [];
  let previous: string | undefined = trigger.id;
  for (const step of steps) {
    const added = await mailroom.POST('/workflows/{id}/steps', { params: { path: { id: workflow.id } }, body: step as any });
    assert.equal(added.response.status, 201);
    ids.push(added.data!.id);
    if (previous) await connect(api, workflow.id, previous, added.data!.id);
    // After a CONDITION or EXIT the caller wires the branches itself.
    previous = step.type === 'CONDITION' || step.type === 'EXIT' ? undefined : added.data!.id;
  }
  return { id: workflow.id as string, triggerId: trigger.id as string, stepIds: ids };
}

export async function connect(api: Client, workflowId: string, fromStepId: string, toStepId: string, branch?: string) {
  const res = await typedClient(api).POST('/workflows/{id}/transitions', {
    params: { path: { id: workflowId } },
    body: { fromStepId, toStepId, ...(branch ? { branch } : {}) } as any,
  });
  assert.equal(res.response.status, 201);
  return res.data!;
}

export async function enable(api: Client, workflowId: string) {
  const res = await typedClient(api).PATCH('/workflows/{id}', { params: { path: { id: workflowId } }, body: { enabled: true } });
  assert.equal(res.response.status, 200);
}

/** The contact's executions of a workflow (any status). */
export async function executionsOf(api: Client, workflowId: string, contactId?: string) {
  const res = await typedClient(api).GET('/workflows/{id}/executions', { params: { path: { id: workflowId }, query: { limit: 100 } } });
  assert.equal(res.response.status, 200);
  return res.data!.data.filter((e) => !contactId || e.contactId === contactId);
}

/** Waits until the contact has an execution in one of `statuses`, and returns it with its step records. */
export async function waitForExecution(api: Client, workflowId: string, contactId: string, statuses: string[], timeoutMs = 20_000): Promise<any> {
  const found = await eventually(
    `an execution in ${statuses.join('/')}`,
    async () => (await executionsOf(api, workflowId, contactId)).find((e) => statuses.includes(e.status)),
    timeoutMs,
  );
  const detail = await typedClient(api).GET('/workflows/{id}/executions/{executionId}', { params: { path: { id: workflowId, executionId: found.id } } });
  assert.equal(detail.response.status, 200);
  return detail.data;
}

export async function track(api: Client, email: string, event: string, data?: Record<string, unknown>) {
  const res = await typedClient(api).POST('/v1/track', { body: { email, event, ...(data ? { data } : {}) } });
  assert.equal(res.response.status, 200);
  return res.data!.data as { contact: string; event: string };
}
