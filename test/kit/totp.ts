import { authenticator } from 'otplib';

/** The code an authenticator app shows for `secret`, `steps` 30-second steps from now. */
export function totpCode(secret: string, steps = 0): string {
  return authenticator.clone({ epoch: Date.now() + steps * 30_000 }).generate(secret);
}

/** A 6-digit code that is none of the secret's codes from 2 steps back to 2 steps ahead. */
export function wrongTotpCode(secret: string): string {
  const valid = new Set([-2, -1, 0, 1, 2].map((steps) => totpCode(secret, steps)));
  for (let n = 123456; ; n = (n + 7919) % 1_000_000) {
    const code = String(n).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}

/**
 * Waits, when fewer than `marginMs` are left in the current 30-second step, for the next step: a
 * code made for a step relative to now (one step of drift) is then still that step when the server
 * checks it, however slow the request.
 */
export async function clearOfStepEdge(marginMs = 5_000): Promise<void> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
