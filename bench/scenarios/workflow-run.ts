import { startDnsServer } from '../../test/kit/dns.ts';
import { verifiedDomain } from '../../test/kit/domains.ts';
import type { Measurement, Scenario } from '../scenario.ts';

// A fixed port: the server's DNS_SERVERS is set before the DNS server exists (its own port, so this
// scenario gets its own Mailroom process rather than sharing the send scenarios'; below Linux's ephemeral range).
const DNS_PORT = 20537;
const CONTACTS = Number(process.env.BENCH_WORKFLOW_CONTACTS ?? 10_000);
const TRACK_CONCURRENCY = 16;

const round = (value: number, places = 1) => Math.round(value * 10 ** places) / 10 ** places;

/**
 * 10,000 contacts tracked into a 4-step workflow (CONDITION → DELAY 1 s → UPDATE_CONTACT →
 * SEND_EMAIL, mail to the .eml outbox): executions per second from the first track to the last
 * completion, and the lag from each trigger (the event's stored time) to its first step's start.
 */
export const workflowRun: Scenario = {
  name: 'workflow-run',
  description: `${CONTACTS} contacts tracked into condition → delay 1 s → update → send: executions/s to completion, trigger-to-first-step lag`,
  server: { env: { DNS_SERVERS: `127.0.0.1:${DNS_PORT}` } },
  run: async (ctx): Promise<Measurement> => {
    const api = ctx.project.api;
    const dns = await startDnsServer({ port: DNS_PORT });
    try {
      const domain = await verifiedDomain(ctx.project, dns);
      const template = await api.post('/templates', {
        name: 'Bench',
        subject: 'Hi {{ email }}',
        body: '<p>Plan {{ event.plan }}</p>',
        from: `bench@${domain.domain}`,
        type: 'TRANSACTIONAL',
      });
      const created = await api.post('/workflows', { name: 'Bench flow', eventName: 'bench-signed-up' });
      const workflowId: string = created.body.id;
      let previous: string = created.body.steps[0].id;
      for (const [type, config] of [
        ['CONDITION', { field: 'event.plan', operator: 'equals', value: 'pro' }],
        ['DELAY', { amount: 1, unit: 'seconds' }],
        ['UPDATE_CONTACT', { data: { onboarded: true } }],
        ['SEND_EMAIL', { templateId: template.body.id }],
      ] as const) {
        const step = await api.post(`/workflows/${workflowId}/steps`, { type, config });
        if (step.status !== 201) throw new Error(`step ${type}: ${step.text}`);
        await api.post(`/workflows/${workflowId}/transitions`, { fromStepId: previous, toStepId: step.body.id, ...(type === 'DELAY' ? { branch: 'yes' } : {}) });
        previous = step.body.id;
      }
      await api.patch(`/workflows/${workflowId}`, { enabled: true });

      const run = Date.now().toString(36);
      const started = performance.now();
      let next = 0;
      const tracker = async () => {
        while (next < CONTACTS) {
          const i = next++;
          const res = await ctx.project.publicApi.post('/v1/track', { email: `flow-${run}-${i}@bench.test`, event: 'bench-signed-up', data: { plan: 'pro' } });
          if (res.status !== 200) throw new Error(`/v1/track answered ${res.status}: ${res.text.slice(0, 300)}`);
        }
      };
      await Promise.all(Array.from({ length: TRACK_CONCURRENCY }, tracker));
      const trackedSeconds = (performance.now() - started) / 1000;
      const deadline = Date.now() + 15 * 60_000;
      let completed = 0;
      while (completed < CONTACTS && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        completed = (await api.get(`/workflows/${workflowId}/executions?status=COMPLETED&limit=1`)).body.total;
      }
      const seconds = (performance.now() - started) / 1000;
      if (completed < CONTACTS) throw new Error(`only ${completed}/${CONTACTS} executions completed`);

      // Lag from the stored event to the start of the first step (the CONDITION), per execution,
      // split at the execution's creation: the trigger (events.dispatch) and the claim (workflows.run).
      const lag: Record<string, number> = {};
      await ctx.withServerStopped(async (db) => {
        const rows = await db.query<Record<string, number>>(
          `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY total) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY total) AS p99, max(total) AS max,
                  percentile_cont(0.99) WITHIN GROUP (ORDER BY dispatch) AS dispatch_p99, percentile_cont(0.99) WITHIN GROUP (ORDER BY claim) AS claim_p99
           FROM (SELECT extract(epoch FROM s.started_at - e.created_at) * 1000 AS total,
                        extract(epoch FROM x.started_at - e.created_at) * 1000 AS dispatch,
                        extract(epoch FROM s.started_at - x.started_at) * 1000 AS claim
                 FROM workflow_executions x
                 JOIN events e ON e.project_id = x.project_id AND e.id = x.event_id
                 JOIN workflow_execution_steps s ON s.project_id = x.project_id AND s.execution_id = x.id AND s.step_type = 'CONDITION'
                 WHERE x.project_id = $1 AND x.workflow_id = $2) lags`,
          [ctx.project.id, workflowId],
        );
        for (const [key, value] of Object.entries(rows[0]!)) lag[key] = round(Number(value), 0);
      });
      return {
        reqPerSec: round(CONTACTS / seconds),
        unit: 'executions/s',
        executions: CONTACTS,
        seconds: round(seconds),
        trackedSeconds: round(trackedSeconds),
        lagP50Ms: lag.p50,
        lagP99Ms: lag.p99,
        lagMaxMs: lag.max,
        triggerLagP99Ms: lag.dispatch_p99,
        claimLagP99Ms: lag.claim_p99,
        p50Ms: null,
        p99Ms: null,
        errors: 0,
        non2xx: 0,
        durationSeconds: round(seconds),
        connections: TRACK_CONCURRENCY,
      };
    } finally {
      await dns.close();
    }
  },
};
