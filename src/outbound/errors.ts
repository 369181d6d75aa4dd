export type OutboundErrorKind = 'refused' | 'scheme' | 'dns' | 'timeout' | 'redirects' | 'network';

/** A call that got no answer: refused by the guard, unresolvable, timed out, too many redirects, or a network error. */
export class OutboundError extends Error {
  override name = 'OutboundError';
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
  ) {
    super(message);
  }
}
