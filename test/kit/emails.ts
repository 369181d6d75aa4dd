import assert from 'node:assert/strict';

type Api = { get: (path: string) => Promise<{ status: number; body: any; text: string }> };

/** Polls GET /emails/{id} until the record reaches one of `statuses`; returns the record. */
export async function waitForStatus(api: Api, id: string, statuses: string[], timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/emails/${id}`);
    assert.equal(res.status, 200, res.text);
    if (statuses.includes(res.body.status)) return res.body;
    if (Date.now() > deadline) assert.fail(`email ${id} is ${res.body.status}, expected ${statuses.join('|')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
