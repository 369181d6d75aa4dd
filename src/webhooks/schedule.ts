/** ±10 % around each step of the retry schedule (docs/decisions/webhook-endpoints.md), so failed messages do not retry in lockstep. */
const JITTER = 0.1;

/**
 * When a message that has now failed `retries` times (this failure included) is tried again, or
 * undefined when the schedule is spent and the message is `failed`.
 */
export function nextRetryAt(schedule: readonly number[], retries: number, now: number, random: () => number = Math.random): Date | undefined {
  const seconds = schedule[retries - 1];
  if (seconds === undefined) return undefined;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return new Date(now + seconds * 1000 * factor);
}
