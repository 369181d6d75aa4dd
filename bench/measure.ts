import autocannon, { type AutocannonOptions } from 'autocannon';
import type { HttpLoad, Measurement } from './scenario.ts';

export type LoadSettings = { connections: number; durationSeconds: number; warmupSeconds: number };

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

function optionsFor(baseUrl: string, load: HttpLoad, connections: number, duration: number): AutocannonOptions {
  return {
    url: baseUrl + load.path,
    method: load.method ?? 'GET',
    headers: { ...(load.body !== undefined ? { 'content-type': 'application/json' } : {}), ...load.headers },
    ...(load.body !== undefined ? { body: load.body } : {}),
    ...(load.requests ? { requests: load.requests } : {}),
    connections,
    duration,
    timeout: 10,
  };
}

/** One request first, so a broken set-up fails loudly instead of measuring error pages. */
async function preflight(baseUrl: string, load: HttpLoad): Promise<void> {
  const response = await fetch(baseUrl + load.path, {
    method: load.method ?? 'GET',
    headers: { ...(load.body !== undefined ? { 'content-type': 'application/json' } : {}), ...load.headers },
    body: Buffer.isBuffer(load.body) ? new Uint8Array(load.body) : load.body,
  });
  const body = await response.text();
  const ok = load.expectStatus === undefined ? response.status >= 200 && response.status < 300 : response.status === load.expectStatus;
  if (!ok) {
    throw new Error(`${load.method ?? 'GET'} ${load.path} answered ${response.status} (expected ${load.expectStatus ?? '2xx'}): ${body.slice(0, 500)}`);
  }
}

/** Warms up, then measures with autocannon in this (the parent) process. */
export async function measureHttp(baseUrl: string, load: HttpLoad, settings: LoadSettings): Promise<Measurement> {
  await preflight(baseUrl, load);
  if (settings.warmupSeconds > 0) await autocannon(optionsFor(baseUrl, load, settings.connections, settings.warmupSeconds));
  const result = await autocannon(optionsFor(baseUrl, load, settings.connections, settings.durationSeconds));
  return {
    reqPerSec: round(result.requests.average, 1),
    p50Ms: round(result.latency.p50),
    p99Ms: round(result.latency.p99),
    errors: result.errors,
    non2xx: result.non2xx,
    durationSeconds: round(result.duration),
    connections: result.connections,
  };
}
