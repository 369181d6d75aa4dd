import { randomBytes } from 'node:crypto';
import type { Scenario } from '../scenario.ts';

/** A flood of unknown keys: each is a cache miss and one indexed lookup, answered 401. */
export const authRejected: Scenario = {
  name: 'auth-rejected',
  description: 'GET /v1/whoami with an unknown secret key (401)',
  http: () => ({
    path: '/v1/whoami',
    headers: { authorization: `Bearer sk_${randomBytes(24).toString('base64url')}` },
    expectStatus: 401,
  }),
};
