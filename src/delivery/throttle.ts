/**
 * SEND_RATE_PER_SECOND (docs/architecture.md): a token bucket per project in this worker process, holding
 * at most one second's worth. `take` answers 0 when a message may leave now, else how many
 * milliseconds until one may (the caller defers the record rather than waiting with it claimed).
 */
export class Throttle {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly perSecond: number) {}

  take(projectId: string, now = Date.now()): number {
    if (this.perSecond <= 0) return 0;
    const bucket = this.buckets.get(projectId) ?? { tokens: this.perSecond, at: now };
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(projectId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - bucket.tokens) / this.perSecond) * 1000);
  }
}
