import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

const IPV4_COMPATIBLE = ipaddr.IPv6.parse('::');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parse('64:ff9b::');

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function lastIPv4(address: IPv6): IPv4 {
  const parts = address.parts;
  return new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
}

/** RFC 3056: a 6to4 address carries its gateway's IPv4 address in bits 16–47. */
function sixToFourIPv4(address: IPv6): IPv4 {
  const parts = address.parts;
  return new ipaddr.IPv4([parts[1]! >> 8, parts[1]! & 0xff, parts[2]! >> 8, parts[2]! & 0xff]);
}

function ipv4Reason(address: IPv4): string | undefined {
  const range = address.range();
  return range === 'unicast' ? undefined : range;
}

/**
 * Why an outbound call may not connect to `address` (the ipaddr.js range name, e.g. `loopback`,
 * `private`, `linkLocal`, `uniqueLocal`, `carrierGradeNat`), or undefined for a public unicast
 * address. IPv6 forms that embed or route to an IPv4 address (mapped, IPv4-compatible, NAT64 and
 * 6to4) are judged by the IPv4 address they carry; Teredo, local-use NAT64 (RFC 8215) and
 * site-local fec0::/10 are refused whole, since where they lead cannot be read from the address.
 */
export function forbiddenReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return ipv4Reason(parsed as IPv4);
  const v6 = parsed as IPv6;
  const range = v6.range();
  const embedded = (ipv4: IPv4, form: string) => {
    const reason = ipv4Reason(ipv4);
    return reason ? `${reason} (${form} ${ipv4.toString()})` : undefined;
  };
  switch (range) {
    case 'unicast':
      // IPv4-compatible (RFC 4291 §2.5.5.1, deprecated but still routed by some stacks): ::a.b.c.d.
      return v6.match(IPV4_COMPATIBLE, 96) ? embedded(lastIPv4(v6), 'IPv4-compatible') : undefined;
    case 'ipv4Mapped':
    case 'rfc6145':
      return embedded(lastIPv4(v6), 'IPv4-mapped');
    case 'rfc6052':
      return v6.match(NAT64_WELL_KNOWN, 96) ? embedded(lastIPv4(v6), 'NAT64') : 'rfc6052 (local-use NAT64)';
    case '6to4':
      return embedded(sixToFourIPv4(v6), '6to4');
    default:
      return range;
  }
}

export function isPublicAddress(address: string): boolean {
  return forbiddenReason(address) === undefined;
}

/** Names that are loopback by definition (RFC 6761 §6.3), refused before any lookup. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
