import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { entryArgs } from '../kit/entry.ts';

const dataDir = () => mkdtempSync(join(tmpdir(), 'mailroom-config-'));

describe('configuration (docs/architecture.md)', () => {
  test('defaults apply with no configuration, and the object is frozen', () => {
    const config = loadConfig({ DATA_DIR: dataDir() });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.publicUrl, 'http://localhost:8080');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.smtpUrl, undefined);
    assert.deepEqual(config.dnsServers, []);
    assert.equal(config.signupEnabled, true);
    assert.equal(config.rateLimitPerMinute, 1000);
    assert.equal(config.idempotencyTtlHours, 24);
    assert.equal(config.domainCheckIntervalSeconds, 300);
    assert.equal(config.segmentRefreshIntervalSeconds, 300);
    assert.equal(config.sendRatePerSecond, 0);
    assert.equal(config.webhookAllowPrivate, false);
    assert.equal(config.role, 'all');
    assert.ok(Object.isFrozen(config));
    assert.throws(() => {
      (config as { port: number }).port = 1;
    });
  });

  test('values are parsed into their types', () => {
    const config = loadConfig({
      DATA_DIR: dataDir(),
      PORT: '9000',
      PUBLIC_URL: 'https://mail.example.com/',
      DNS_SERVERS: '127.0.0.1:5353, 10.0.0.1',
      SIGNUP_ENABLED: 'false',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ROLE: 'worker',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/mailroom',
      SEND_RATE_PER_SECOND: '25',
    });
    assert.equal(config.port, 9000);
    assert.equal(config.publicUrl, 'https://mail.example.com');
    assert.deepEqual(config.dnsServers, ['127.0.0.1:5353', '10.0.0.1']);
    assert.equal(config.signupEnabled, false);
    assert.equal(config.webhookAllowPrivate, true);
    assert.equal(config.role, 'worker');
    assert.equal(config.sendRatePerSecond, 25);
  });

  test('SYSTEM_FROM and SPF_MECHANISMS are parsed (docs/architecture.md)', () => {
    const config = loadConfig({
      DATA_DIR: dataDir(),
      SYSTEM_FROM: 'Mailroom Team <No-Reply@Mail.Example.com>',
      SPF_MECHANISMS: 'ip4:203.0.113.7/32, include:amazonses.com  -ip6:2001:db8::/32 a:relay.example.com',
    });
    assert.deepEqual(config.systemFrom, { address: 'no-reply@mail.example.com', name: 'Mailroom Team', domain: 'mail.example.com' });
    assert.deepEqual(config.spfMechanisms, ['ip4:203.0.113.7/32', 'include:amazonses.com', '-ip6:2001:db8::/32', 'a:relay.example.com']);
    const bare = loadConfig({ DATA_DIR: dataDir(), SYSTEM_FROM: 'alerts@example.org' });
    assert.deepEqual(bare.systemFrom, { address: 'alerts@example.org', name: 'Mailroom', domain: 'example.org' });
    assert.deepEqual(bare.spfMechanisms, []);
    assert.equal(loadConfig({ DATA_DIR: dataDir() }).systemFrom, undefined);
  });

  test('without SESSION_SECRET one is generated once and kept in DATA_DIR', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir }).sessionSecret;
    assert.ok(first.length >= 32);
    assert.equal(loadConfig({ DATA_DIR: dir }).sessionSecret, first);
  });

  for (const [name, value] of [
    ['PORT', 'eighty'],
    ['ROLE', 'scheduler'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['SMTP_URL', 'http://relay'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['SIGNUP_ENABLED', 'maybe'],
    ['DNS_SERVERS', '127.0.0.1:53,not a host'],
    ['ROLE', 'api'], // without DATABASE_URL: the embedded database cannot be shared by two processes
    ['SYSTEM_FROM', 'no-reply'],
    ['SYSTEM_FROM', 'Mailroom <no-reply@localhost>'],
    ['SPF_MECHANISMS', 'ip4:203.0.113.300'],
    ['SPF_MECHANISMS', 'include:relay.example.com ~all'], // the record's own all is added by the server
    ['SPF_MECHANISMS', 'ip6:203.0.113.7'],
  ] as const) {
    test(`a bad ${name} (${value}) names the variable`, () => {
      assert.throws(
        () => loadConfig({ DATA_DIR: dataDir(), [name]: value }),
        (error: Error) => error.message.includes(name),
      );
    });
  }

  test('a bad value stops start-up with a message naming the variable', () => {
    const result = spawnSync(process.execPath, entryArgs('src/main'), {
      env: { ...process.env, DATA_DIR: dataDir(), IDEMPOTENCY_TTL_HOURS: 'soon' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /IDEMPOTENCY_TTL_HOURS/);
  });
});
