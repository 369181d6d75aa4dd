import { type AddressInfo, Socket as NetSocket, type Socket } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;

export type RecordType = 'TXT' | 'MX' | 'A' | 'AAAA' | 'NS' | 'CNAME';

/**
 * Values per record type. A TXT record is a string, or a string[] to send it as several
 * character-strings (how a long DKIM key is published); a string over 255 bytes is split into
 * 255-byte strings, as DNS hosting providers do (RFC 1035 §3.3.14 caps each at 255).
 */
export type RecordValues = {
  TXT: Array<string | string[]>;
  MX: Array<{ exchange: string; priority: number }>;
  A: string[];
  AAAA: string[];
  NS: string[];
  CNAME: string[];
};

export type DnsServer = {
  port: number;
  /** `127.0.0.1:<port>`: the DNS_SERVERS value for a server under test. */
  address: string;
  /** Replaces the records of one type at a name. */
  set<T extends RecordType>(name: string, type: T, values: RecordValues[T]): void;
  /** Removes one type at a name, or the whole name (it then answers NXDOMAIN). */
  remove(name: string, type?: RecordType): void;
  /** While on, queries for the name get no answer at all (to exercise lookup timeouts). */
  unresponsive(name: string, on?: boolean): void;
  /** Every question received, in order (to check caching), with the transport it came over. */
  queries: Array<{ name: string; type: string; via: 'udp' | 'tcp' }>;
  clear(): void;
  close(): Promise<void>;
};

const TYPE_CODES: Record<RecordType, number> = {
  A: Packet.TYPE.A,
  AAAA: Packet.TYPE.AAAA,
  MX: Packet.TYPE.MX,
  TXT: Packet.TYPE.TXT,
  NS: Packet.TYPE.NS,
  CNAME: Packet.TYPE.CNAME,
};
const TYPE_NAMES = new Map<number, string>(Object.entries(Packet.TYPE).map(([name, code]) => [code as number, name]));

/** RFC 1035 §4.1.1 RCODE 3 (dns2's typings lack Packet.RCODE). */
const NXDOMAIN = 3;

const normalize = (name: string) => name.toLowerCase().replace(/\.+$/, '');

function splitTxt(value: string | string[]): string[] {
  const strings = Array.isArray(value) ? value : [value];
  return strings.flatMap((s) => {
    const bytes = Buffer.from(s);
    if (bytes.length <= 255) return [s];
    const parts: string[] = [];
    for (let i = 0; i < bytes.length; i += 255) parts.push(bytes.subarray(i, i + 255).toString());
    return parts;
  });
}

function rdata(type: RecordType, value: unknown): Record<string, unknown> {
  switch (type) {
    case 'A':
    case 'AAAA':
      return { address: value };
    case 'MX':
      return { ...(value as { exchange: string; priority: number }) };
    case 'TXT':
      return { data: splitTxt(value as string | string[]) };
    case 'NS':
      return { ns: value };
    case 'CNAME':
      return { domain: value };
  }
}

/**
 * An authoritative DNS server on 127.0.0.1 (UDP and TCP on one random port) answering from records
 * a test sets: the DNS peer that DNS_SERVERS points at. An unknown name answers NXDOMAIN; a known
 * name (or a parent of one: an empty non-terminal) without the asked type answers NOERROR with no
 * records. A CNAME is followed within the server's own records, as a resolver would.
 */
export async function startDnsServer(options: { ttl?: number; port?: number } = {}): Promise<DnsServer> {
  const ttl = options.ttl ?? 60;
  const zone = new Map<string, Map<RecordType, unknown[]>>();
  const silent = new Set<string>();
  const queries: DnsServer['queries'] = [];

  const nameExists = (name: string) => zone.has(name) || [...zone.keys()].some((known) => known.endsWith(`.${name}`));

  function answer(request: InstanceType<typeof Packet>) {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    const question = request.questions[0];
    if (!question) return response;
    let name = normalize(question.name);
    for (let hops = 0; hops < 8; hops++) {
      const records = zone.get(name);
      const wanted = [...(records?.keys() ?? [])].find((t) => TYPE_CODES[t] === question.type);
      const cname = records?.get('CNAME');
      if (!wanted && cname?.length && question.type !== Packet.TYPE.CNAME) {
        response.answers.push({ name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl, domain: cname[0] } as never);
        name = normalize(cname[0] as string);
        continue;
      }
      if (wanted) {
        for (const value of records!.get(wanted)!) {
          response.answers.push({ name, type: TYPE_CODES[wanted], class: Packet.CLASS.IN, ttl, ...rdata(wanted, value) } as never);
        }
      } else if (response.answers.length === 0 && !nameExists(name)) {
        response.header.rcode = NXDOMAIN;
      }
      break;
    }
    return response;
  }

  const handle = (request: InstanceType<typeof Packet>, send: (response: InstanceType<typeof Packet>) => Promise<unknown>, client: object) => {
    const question = request.questions[0];
    const via = client instanceof NetSocket ? 'tcp' : 'udp';
    if (question) queries.push({ name: normalize(question.name), type: TYPE_NAMES.get(question.type) ?? String(question.type), via });
    if (question && silent.has(normalize(question.name))) return;
    send(answer(request)).catch(() => {});
  };

  const { udp, tcp } = await listenOnOnePort(handle as never, options.port ?? 0);

  return {
    port: udp.address().port,
    address: `127.0.0.1:${udp.address().port}`,
    queries,
    set(name, type, values) {
      const key = normalize(name);
      const records = zone.get(key) ?? new Map<RecordType, unknown[]>();
      records.set(type, [...values]);
      zone.set(key, records);
    },
    remove(name, type) {
      const key = normalize(name);
      if (!type) return void zone.delete(key);
      const records = zone.get(key);
      records?.delete(type);
      if (records && records.size === 0) zone.delete(key);
    },
    unresponsive(name, on = true) {
      if (on) silent.add(normalize(name));
      else silent.delete(normalize(name));
    },
    clear() {
      zone.clear();
      silent.clear();
      queries.length = 0;
    },
    close: async () => {
      await Promise.all([new Promise<void>((resolve) => udp.close(() => resolve())), new Promise<void>((resolve) => tcp.close(() => resolve()))]);
    },
  };
}

/**
 * UDP on a free port (or `fixedPort`), TCP on the same number (a resolver retries a truncated UDP
 * answer over TCP on the same server). If that TCP port is taken, another UDP port is tried.
 */
async function listenOnOnePort(handle: Parameters<typeof dns2.createUDPServer>[0], fixedPort: number) {
  for (let attempt = 0; ; attempt++) {
    const udp = dns2.createUDPServer(handle);
    await udp.listen(fixedPort, '127.0.0.1');
    const port = (udp.address() as AddressInfo).port;
    const tcp = dns2.createTCPServer(handle as never);
    tcp.on('requestError', () => {});
    // close() must not wait for a resolver's idle TCP connection to time out.
    const sockets = new Set<Socket>();
    tcp.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, '127.0.0.1', () => resolve());
      });
      udp.on('requestError', () => {});
      const closeTcp = (callback: () => void) => {
        tcp.close(() => callback());
        for (const socket of sockets) socket.destroy();
      };
      return { udp, tcp: { close: closeTcp } };
    } catch (error) {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      if (attempt >= 10 || fixedPort) throw error;
    }
  }
}
