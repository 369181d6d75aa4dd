import type { FastifyPluginAsync } from 'fastify';
import { accountsRoutes } from './accounts/accounts.routes.ts';
import type { Deps } from './deps.ts';
import type { JobDefinition } from './jobs/queue.ts';
import { platformJobs } from './platform/platform.jobs.ts';
import { platformRoutes } from './platform/platform.routes.ts';
import { membersRoutes } from './projects/members.routes.ts';
import { projectsRoutes } from './projects/projects.routes.ts';

/**
 * Every capability, in one list: its HTTP routes (a Fastify plugin mounted under `prefix`) and its
 * background jobs. server.ts wires routes into the API and jobs into the worker from here.
 */
export type Capability = {
  name: string;
  prefix: string;
  routes: FastifyPluginAsync<Deps>;
  jobs?: (deps: Deps) => JobDefinition<any>[];
};

export const CAPABILITIES: Capability[] = [
  { name: 'accounts', prefix: '', routes: accountsRoutes },
  { name: 'projects', prefix: '', routes: projectsRoutes },
  { name: 'members', prefix: '', routes: membersRoutes },
  { name: 'platform', prefix: '', routes: platformRoutes, jobs: platformJobs },
];
