import type { Scenario } from '../scenario.ts';

/**
 * The fixed cost of every key-authenticated request: the key lookup (cached after the first),
 * the per-project rate limit, the envelope and one small query for the project.
 */
export const authWhoami: Scenario = {
  name: 'auth-whoami',
  description: 'GET /v1/whoami with the secret key',
  http: (ctx) => ({
    path: '/v1/whoami',
    headers: { authorization: `Bearer ${ctx.project.secretKey}` },
    expectStatus: 200,
  }),
};
