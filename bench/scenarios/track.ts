import type { BenchContext, HttpLoad, Scenario } from '../scenario.ts';

/** POST /v1/track, each request's email chosen by `emailFor(n)` (n counts requests). */
function trackLoad(ctx: BenchContext, _label: string, emailFor: (n: number) => string): HttpLoad {
  let n = 0;
  const headers = { authorization: `Bearer ${ctx.project.publicKey}`, 'content-type': 'application/json' };
  const body = (email: string) => JSON.stringify({ email, event: 'page-viewed', data: { plan: 'pro', visits: 3 } });
  return {
    method: 'POST',
    path: '/v1/track',
    headers,
    body: body(emailFor(0)),
    requests: [{ method: 'POST', path: '/v1/track', headers, setupRequest: (request) => ({ ...request, body: body(emailFor(++n)) }) }],
    expectStatus: 200,
  };
}

const runId = Date.now().toString(36);

/** Every request creates a contact, then stores its event (the API reference /v1/track). */
export const trackNew: Scenario = {
  name: 'track-new',
  description: 'POST /v1/track with the public key, a new contact every request',
  http: (ctx) => trackLoad(ctx, 'new', (n) => `new-${runId}-${n}@bench.test`),
};

/** The common case: events of contacts the project already has (1,000 of them, reused). */
export const trackExisting: Scenario = {
  name: 'track-existing',
  description: 'POST /v1/track with the public key, events of 1,000 existing contacts',
  setup: async (ctx) => {
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => ctx.project.publicApi.post('/v1/track', { email: `known-${runId}-${i + j}@bench.test`, event: 'seeded' })));
    }
  },
  http: (ctx) => trackLoad(ctx, 'existing', (n) => `known-${runId}-${n % 1000}@bench.test`),
};
