import type { FastifyPluginAsync } from 'fastify';
import type { Deps } from '../deps.ts';
import { CLEANUP_CRON, CLEANUP_JOB } from './platform.jobs.ts';

/**
 * The platform capability has no endpoints of its own (rate limiting and Idempotency-Key are hooks
 * in src/http/); it only makes sure its periodic cleanup is scheduled once the app is ready. The
 * schedule lives in the database, so any API process writing it serves every worker.
 */
export const platformRoutes: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.addHook('onReady', async () => {
    try {
      await deps.queue.schedule(CLEANUP_JOB, CLEANUP_CRON);
    } catch (error) {
      deps.log.error({ err: error }, 'could not schedule the platform cleanup');
    }
  });
};
