/** The zone the viewer's browser is in (the default zone of a schedule). */
export const viewerZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Every IANA zone the browser knows, for the zone picker. */
export const zones = (): string[] => {
  const all = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return all.includes(viewerZone()) ? all : [viewerZone(), ...all];
};

/** How far `zone`'s wall clock is ahead of UTC at `instant`, in milliseconds. */
function offsetOf(zone: string, instant: number): number {
  const fields = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  })
    .formatToParts(new Date(instant))
    .filter((part) => part.type !== 'literal');
  const parts: Record<string, number> = Object.fromEntries(fields.map((part) => [part.type, Number(part.value)]));
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant at which `zone`'s clock reads `date` (YYYY-MM-DD) `time` (HH:MM); undefined when
 * either is incomplete. Two passes settle a date near a daylight-saving change.
 */
export function instantIn(date: string, time: string, zone: string): Date | undefined {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const t = /^(\d{2}):(\d{2})$/.exec(time);
  if (!d || !t) return undefined;
  const wall = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]), Number(t[1]), Number(t[2]));
  let instant = wall - offsetOf(zone, wall);
  instant = wall - offsetOf(zone, instant);
  return new Date(instant);
}

/** `instant` as the date and time inputs show it in `zone`. */
export function wallClockIn(instant: Date, zone: string): { date: string; time: string } {
  const shifted = new Date(instant.getTime() + offsetOf(zone, instant.getTime()));
  const iso = shifted.toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}
