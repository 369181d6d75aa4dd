import type { Scenario } from '../scenario.ts';

/** The baseline every other line is divided by: bare Fastify answering `{ hello: 'world' }`. */
export const helloWorld: Scenario = {
  name: 'hello-world',
  description: 'Bare Fastify hello-world in its own process (the ratio baseline)',
  baseline: true,
  http: () => ({ path: '/' }),
};
