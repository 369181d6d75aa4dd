// The checks of scripts/image-test.sh: starts the server from a mounted image's file system with
// chroot, as the image's user, on the embedded database in the bind-mounted DATA_DIR, then checks
// /health (and the image's own HEALTHCHECK command), a sign-up and a send that lands in the outbox.
// Environment: IMAGE_ROOT (the mount), IMAGE_USER, IMAGE_WORKDIR, IMAGE_DATA (the host directory
// mounted at /data), IMAGE_HEALTHCHECK (the HEALTHCHECK's test as JSON).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createProject, uniqueEmail } from '../test/kit/accounts.ts';
import { startDnsServer } from '../test/kit/dns.ts';
import { verifiedDomain } from '../test/kit/domains.ts';
import { waitForStatus } from '../test/kit/emails.ts';

const root = process.env.IMAGE_ROOT!;
const user = process.env.IMAGE_USER!;
const workdir = process.env.IMAGE_WORKDIR || '/';
const data = process.env.IMAGE_DATA!;
const healthcheck = JSON.parse(process.env.IMAGE_HEALTHCHECK ?? '[]') as string[];

/** The image's uid and gid for its USER (a name or `uid[:gid]`), read from its own /etc/passwd. */
function idsOf(spec: string): { uid: number; gid: number } {
  const [name, group] = spec.split(':');
  if (/^\d+$/.test(name!)) return { uid: Number(name), gid: Number(group ?? name) };
  const entry = readFileSync(join(root, 'etc/passwd'), 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === name);
  assert.ok(entry, `user ${name} is not in the image's /etc/passwd`);
  return { uid: Number(entry[2]), gid: Number(entry[3]) };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const { uid, gid } = idsOf(user);
assert.notEqual(uid, 0, 'the image runs as a user other than root');
const dns = await startDnsServer();
const port = await freePort();
// Only what a container would get: the image's PATH and the settings given to it.
const env = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/home/node',
  NODE_ENV: 'production',
  DATA_DIR: '/data',
  HOST: '127.0.0.1',
  PORT: String(port),
  DNS_SERVERS: dns.address,
  LOG_LEVEL: 'info',
};
const inImage = (command: string[]) => ['--userspec', `${uid}:${gid}`, root, '/bin/sh', '-c', `cd ${workdir} && exec "$@"`, 'sh', ...command];

const child = spawn('chroot', inImage(['node', 'dist/src/main.js']), { env, stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
const step = (what: string) => console.log(`[image-check] ${what}`);

try {
  const startedAt = Date.now();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 300 s:\n${output}`)), 300_000);
    const poll = setInterval(() => {
      if (output.includes('"msg":"mailroom started"')) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve();
      }
    }, 50);
    exited.then((code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`the server exited (${code}) before starting:\n${output}`));
    });
  });
  step(`server started from the image as uid ${uid} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  const url = `http://127.0.0.1:${port}`;

  const health = await fetch(`${url}/health`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: 'ok' });
  assert.equal(healthcheck[0], 'CMD', `HEALTHCHECK runs a command without a shell: ${JSON.stringify(healthcheck)}`);
  const probe = spawnSync('chroot', inImage(healthcheck.slice(1)), { env, encoding: 'utf8', timeout: 30_000 });
  assert.equal(probe.status, 0, `the image's HEALTHCHECK failed: ${probe.stderr}`);
  step('/health answers 200 and the HEALTHCHECK command passes');

  const project = await createProject(url);
  step(`signed up ${project.owner.email} and created project ${project.id}`);
  const domain = await verifiedDomain(project, dns);
  const to = uniqueEmail('reader');
  const subject = 'Your first Mailroom message — ようこそ';
  const sent = await project.api.post('/v1/send', { to, from: `hello@${domain.domain}`, subject, body: '<h1>It works</h1><p>Sent from the container image.</p>' });
  assert.equal(sent.status, 200, sent.text);
  const emailId = sent.body.data.emails[0].email as string;
  assert.equal((await waitForStatus(project.api, emailId, ['DELIVERED', 'FAILED'], 60_000)).status, 'DELIVERED');
  const file = join(data, 'outbox', `${emailId}.eml`);
  const eml = readFileSync(file, 'utf8');
  assert.match(eml, new RegExp(`^To: ${to}`, 'mi'));
  assert.match(eml, /^DKIM-Signature: /m);
  assert.equal(statSync(file).uid, uid, 'the outbox file belongs to the image user');
  assert.ok(readdirSync(join(data, 'pg')).length > 0, 'the embedded database lives in the DATA_DIR volume');
  step(`sent ${emailId}: DELIVERED, signed, written to the outbox in the DATA_DIR volume`);

  child.kill('SIGTERM');
  assert.equal(await exited, 0, `the server stops cleanly on SIGTERM:\n${output.slice(-2000)}`);
  step('stopped cleanly on SIGTERM');
} catch (error) {
  console.error(output.slice(-4000));
  throw error;
} finally {
  if (child.exitCode === null) child.kill('SIGKILL');
  await dns.close();
}
