import type { EmailMetricRow } from './analytics.queries.ts';

/** Email metrics as the API shows them (docs/decisions/analytics.md defines each). */
export type EmailMetrics = {
  attempted: number;
  sent: number;
  delivered: number;
  opened: number;
  uniqueOpened: number;
  clicked: number;
  uniqueClicked: number;
  bounced: number;
  softBounced: number;
  complained: number;
  failed: number;
  suppressed: number;
};

export function toMetrics(row: EmailMetricRow): EmailMetrics {
  return {
    attempted: row.attempted,
    sent: row.sent,
    delivered: row.delivered,
    opened: row.opened,
    uniqueOpened: row.unique_opened,
    clicked: row.clicked,
    uniqueClicked: row.unique_clicked,
    bounced: row.bounced,
    softBounced: row.soft_bounced,
    complained: row.complained,
    failed: row.failed,
    suppressed: row.suppressed,
  };
}

export type Rates = { delivery: number | null; open: number | null; click: number | null; bounce: number | null; complaint: number | null };

/** A ratio rounded to 4 decimals; null when there is nothing to divide by. */
export const ratio = (part: number, whole: number): number | null => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null);

/**
 * Rates per message: delivery, bounce and complaint over the messages that reached the receiving
 * side; open and click rates count each message once (its first open or click) over those delivered.
 */
export function ratesOf(m: EmailMetrics): Rates {
  return {
    delivery: ratio(m.delivered, m.attempted),
    open: ratio(m.uniqueOpened, m.delivered),
    click: ratio(m.uniqueClicked, m.delivered),
    bounce: ratio(m.bounced, m.attempted),
    complaint: ratio(m.complained, m.attempted),
  };
}

export function sumMetrics(rows: EmailMetrics[]): EmailMetrics {
  const total = toMetrics({
    attempted: 0,
    sent: 0,
    delivered: 0,
    opened: 0,
    unique_opened: 0,
    clicked: 0,
    unique_clicked: 0,
    bounced: 0,
    soft_bounced: 0,
    complained: 0,
    failed: 0,
    suppressed: 0,
  });
  for (const row of rows) for (const key of Object.keys(total) as Array<keyof EmailMetrics>) total[key] += row[key];
  return total;
}
