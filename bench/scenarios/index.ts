import type { Scenario } from '../scenario.ts';
import { authRejected } from './auth-rejected.ts';
import { authWhoami } from './auth-whoami.ts';
import { helloWorld } from './hello-world.ts';

/** Every scenario `npm run bench` runs, in order. Add one line per new scenario. */
export const SCENARIOS: Scenario[] = [
  helloWorld,
  authWhoami,
  authRejected,
];
