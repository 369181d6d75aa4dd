/** The windows a user picks, ending now; 24 hours is bucketed by hour, the others by day. */
export const RANGES = [
  { value: '24h', label: '24 hours', hours: 24 },
  { value: '7d', label: '7 days', hours: 7 * 24 },
  { value: '30d', label: '30 days', hours: 30 * 24 },
  { value: '90d', label: '90 days', hours: 90 * 24 },
] as const;
export type Range = (typeof RANGES)[number]['value'];

export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export const zones = (): string[] => {
  try {
    return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  } catch {
    return ['UTC', browserZone()];
  }
};

/** `from` of a window that ends now, rounded down to the minute so the query key stays stable. */
export function windowStart(range: Range): string {
  const hours = RANGES.find((r) => r.value === range)?.hours ?? 720;
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  return new Date(now - hours * 3_600_000).toISOString();
}

export const SERIES = [
  { name: 'sent', label: 'Sent', color: 'indigo.9' },
  { name: 'delivered', label: 'Delivered', color: 'teal.9' },
  { name: 'opened', label: 'Opened', color: 'grape.9' },
  { name: 'clicked', label: 'Clicked', color: 'blue.9' },
  { name: 'bounced', label: 'Bounced', color: 'red.9' },
] as const;

export const rate = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : `${(value * 100).toLocaleString(undefined, { maximumFractionDigits: 1 })} %`;
