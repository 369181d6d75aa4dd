import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProject, type TestProject } from '../../test/kit/accounts.ts';
import { measureHttp } from '../measure.ts';
import type { BenchContext, HttpLoad, Measurement, Scenario } from '../scenario.ts';

const PROJECTS = 100;
const ENDPOINTS_PER_PROJECT = 10;
const EVENTS_PER_PROJECT = Number(process.env.BENCH_WEBHOOK_EVENTS_PER_PROJECT ?? 20);
const TRACK_CONCURRENCY = 32;

const round = (value: number, places = 1) => Math.round(value * 10 ** places) / 10 ** places;
const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : null);

/** The customers' endpoints: one local server that answers 200 at once and notes each arrival. */
async function startReceiver() {
  const arrivals: Array<{ at: number; eventAt: number; id: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
      arrivals.push({ at, eventAt: Date.parse(body.timestamp), id: String(req.headers['webhook-id']) });
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    arrivals,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function trackNewLoad(project: TestProject, label: string): HttpLoad {
  let n = 0;
  const run = Date.now().toString(36);
  const headers = { authorization: `Bearer ${project.publicKey}`, 'content-type': 'application/json' };
  const body = (i: number) => JSON.stringify({ email: `${label}-${run}-${i}@bench.test`, event: 'page-viewed', data: { plan: 'pro', visits: 3 } });
  return {
    method: 'POST',
    path: '/v1/track',
    headers,
    body: body(0),
    requests: [{ method: 'POST', path: '/v1/track', headers, setupRequest: (request) => ({ ...request, body: body(++n) }) }],
    expectStatus: 200,
  };
}

async function addEndpoints(project: TestProject, url: string, count: number) {
  for (let i = 0; i < count; i++) {
    const res = await project.api.post('/webhook-endpoints', { url, events: ['*'] });
    if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${res.text}`);
  }
}

/**
 * Customer webhooks (docs/decisions/webhook-endpoints.md) with 1,000 endpoints across 100 projects, in one Mailroom process:
 * track-new's rate before any endpoint exists and with them (the tracked project has none of its
 * own, then 10 of its own being delivered to while it is measured); then a burst of events into the
 * 100 projects: deliveries per second to a local receiver and the lag from event to arrival.
 */
export const webhookDelivery: Scenario = {
  name: 'webhook-delivery',
  description: `${PROJECTS * ENDPOINTS_PER_PROJECT} endpoints across ${PROJECTS} projects: deliveries/s to a local receiver, event-to-delivery lag, track-new with webhooks on`,
  server: { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } },
  run: async (ctx: BenchContext): Promise<Measurement> => {
    const receiver = await startReceiver();
    const settings = { connections: ctx.connections, durationSeconds: ctx.durationSeconds, warmupSeconds: 2 };
    try {
      const trackBefore = await measureHttp(ctx.baseUrl, trackNewLoad(ctx.project, 'before'), settings);

      const projects: TestProject[] = [];
      for (let p = 0; p < PROJECTS; p++) {
        const project = await createProject(ctx.baseUrl);
        await addEndpoints(project, receiver.url(`/p${p}`), ENDPOINTS_PER_PROJECT);
        projects.push(project);
      }
      const trackWithEndpoints = await measureHttp(ctx.baseUrl, trackNewLoad(ctx.project, 'others'), settings);

      // The burst: events into the 100 projects, every one fanned out to its project's 10 endpoints.
      const events = PROJECTS * EVENTS_PER_PROJECT;
      const expected = events * ENDPOINTS_PER_PROJECT;
      const first = receiver.arrivals.length;
      const started = Date.now();
      let next = 0;
      const tracker = async () => {
        while (next < events) {
          const i = next++;
          const project = projects[i % PROJECTS]!;
          const res = await project.publicApi.post('/v1/track', { email: `burst-${i}@bench.test`, event: 'order.placed', data: { order: `ord_${i}`, amount: 42.5 } });
          if (res.status !== 200) throw new Error(`/v1/track answered ${res.status}: ${res.text.slice(0, 300)}`);
        }
      };
      await Promise.all(Array.from({ length: TRACK_CONCURRENCY }, tracker));
      const trackedSeconds = (Date.now() - started) / 1000;
      const deadline = Date.now() + 15 * 60_000;
      // Each message counts once, at its first arrival (a repeat is an answer that came too late).
      const firsts = new Map<string, { at: number; eventAt: number }>();
      let seen = first;
      while (firsts.size < expected && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        for (; seen < receiver.arrivals.length; seen++) {
          const arrival = receiver.arrivals[seen]!;
          if (!firsts.has(arrival.id)) firsts.set(arrival.id, arrival);
        }
      }
      if (firsts.size < expected) throw new Error(`only ${firsts.size}/${expected} deliveries arrived`);
      const burst = [...firsts.values()];
      const seconds = (Math.max(...burst.map((a) => a.at)) - started) / 1000;
      const lags = burst.map((a) => a.at - a.eventAt).sort((a, b) => a - b);
      const repeats = seen - first - expected;

      // track-new on a project with 10 endpoints of its own: every tracked event is delivered 10 times
      // by the same process while the rate is measured.
      await addEndpoints(ctx.project, receiver.url('/tracked'), ENDPOINTS_PER_PROJECT);
      const beforeDelivering = receiver.arrivals.length;
      const trackDelivering = await measureHttp(ctx.baseUrl, trackNewLoad(ctx.project, 'delivering'), settings);
      const deliveredMeanwhile = receiver.arrivals.length - beforeDelivering;

      return {
        reqPerSec: round(expected / seconds),
        p50Ms: percentile(lags, 50),
        p99Ms: percentile(lags, 99),
        errors: 0,
        non2xx: 0,
        durationSeconds: round(seconds),
        connections: TRACK_CONCURRENCY,
        unit: 'deliveries/s (event to arrival; p50Ms and p99Ms are the lag)',
        events,
        deliveries: expected,
        repeats,
        eventsTrackedPerSec: round(events / trackedSeconds),
        maxLagMs: lags.at(-1),
        trackNewBefore: trackBefore.reqPerSec,
        trackNewWithEndpoints: trackWithEndpoints.reqPerSec,
        trackNewWithEndpointsRatio: round(trackWithEndpoints.reqPerSec / trackBefore.reqPerSec, 3),
        trackNewWithEndpointsP99Ms: trackWithEndpoints.p99Ms,
        trackNewDelivering: trackDelivering.reqPerSec,
        trackNewDeliveringRatio: round(trackDelivering.reqPerSec / trackBefore.reqPerSec, 3),
        trackNewDeliveringP99Ms: trackDelivering.p99Ms,
        deliveredWhileTracking: deliveredMeanwhile,
      };
    } finally {
      await receiver.close();
    }
  },
};
