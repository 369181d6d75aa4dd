import assert from 'node:assert/strict';
import { importCsv } from './contact-jobs.ts';
import type { Client } from './http.ts';
import { typedClient } from './mailroom.ts';

export type SeedContact = { email: string; subscribed: boolean; name?: string };

/** Contacts through POST /contacts/import (one request, however many). */
export async function seedContacts(api: Client, contacts: SeedContact[]): Promise<void> {
  const lines = ['email,name,subscribed', ...contacts.map((c) => `${c.email},${c.name ?? ''},${c.subscribed ? 'yes' : 'no'}`)];
  const job = await importCsv(api, lines.join('\n'));
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.succeeded, contacts.length, JSON.stringify(job.errors));
}

/** `n` contacts named `<label>-<i>@<domain>`; every `unsubscribedEvery`-th one unsubscribed. */
export function makeContacts(label: string, n: number, unsubscribedEvery = 0): SeedContact[] {
  return Array.from({ length: n }, (_, i) => ({
    email: `${label}-${i}@recipients.example.test`,
    name: `Name${i}`,
    subscribed: !(unsubscribedEvery && i % unsubscribedEvery === 0),
  }));
}

/** A valid create body for an ALL campaign from `from`, with `overrides`. */
export function campaignBody(from: string, overrides: Record<string, unknown> = {}) {
  return {
    name: 'Spring news',
    subject: 'Hello {{name ?? "friend"}}',
    body: '<p>Hi {{name ?? "friend"}}, <a href="https://example.com/spring">read</a></p>',
    from,
    audienceType: 'ALL',
    ...overrides,
  };
}

/** POST /campaigns with the typed client; `body` may be invalid on purpose (the server's answer decides). */
export async function createCampaign(api: Client, body: Record<string, unknown>): Promise<any> {
  const res = await typedClient(api).POST('/campaigns', { body: body as any });
  assert.equal(res.response.status, 201);
  return res.data!.data;
}

/** Polls GET /campaigns/{id} until its status is one of `statuses`; returns the campaign. */
export async function waitForCampaign(api: Client, id: string, statuses: string[], timeoutMs = 30_000): Promise<any> {
  const mailroom = typedClient(api);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await mailroom.GET('/campaigns/{id}', { params: { path: { id } } });
    assert.equal(res.response.status, 200);
    const campaign = res.data!.data;
    if (statuses.includes(campaign.status)) return campaign;
    if (Date.now() > deadline) assert.fail(`campaign ${id} is ${campaign.status} after ${timeoutMs} ms, expected ${statuses.join('|')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls until `check` is true; fails with `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** How many messages each recipient got, from a list of envelope recipient lists. */
export function countByRecipient(envelopes: string[][]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const to of envelopes) for (const address of to) counts.set(address.toLowerCase(), (counts.get(address.toLowerCase()) ?? 0) + 1);
  return counts;
}
