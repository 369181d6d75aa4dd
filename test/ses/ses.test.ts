import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { FakeSns, makeCertificate, type SnsMessage, sesNotification } from '../kit/sns.ts';

describe('POST /webhooks/ses (Amazon SNS → SES feedback)', () => {
  let server: TestServer;
  let sns: FakeSns;
  before(async () => {
    server = await startTestServer();
    sns = new FakeSns();
    server.deps.sns.useTransport(sns.transport);
  });
  after(() => server.close());

  const post = (message: SnsMessage | string, contentType = 'text/plain; charset=UTF-8') =>
    client(server.url).post('/webhooks/ses', undefined, {
      rawBody: typeof message === 'string' ? message : JSON.stringify(message),
      headers: { 'content-type': contentType, ...(typeof message === 'string' ? {} : { 'x-amz-sns-message-type': message.Type! }) },
    });

  type Sent = { project: TestProject; contactId: string; emailId: string; messageId: string; to: string };

  /** A contact and a SENT email record to it, made the way /v1/send leaves one after the relay took it. */
  async function sentEmail(project?: TestProject, status = 'SENT'): Promise<Sent> {
    project ??= await createProject(server.url);
    const to = `rcpt-${randomUUID().slice(0, 8)}@example.test`;
    const contact = await project.api.post('/contacts', { email: to, subscribed: true });
    assert.equal(contact.status, 201, contact.text);
    const emailId = randomUUID();
    const messageId = `<${emailId}@mail.example.test>`;
    await server.deps.db.query(
      `INSERT INTO emails (project_id, id, contact_id, to_address, from_address, subject, html, status, message_id, sent_at)
       VALUES ($1, $2, $3, $4, 'sender@mail.example.test', 'Hello', '<p>Hi</p>', $5, $6, now())`,
      [project.id, emailId, contact.body.id, to, status, messageId],
    );
    return { project, contactId: contact.body.id, emailId, messageId, to };
  }

  async function record(sent: Sent) {
    const rows = await server.deps.db.query<{ status: string; bounced_at: Date | null; delivered_at: Date | null; complained_at: Date | null; last_error: string | null }>(
      'SELECT status, bounced_at, delivered_at, complained_at, last_error FROM emails WHERE project_id = $1 AND id = $2',
      [sent.project.id, sent.emailId],
    );
    return rows[0]!;
  }

  async function eventsOf(sent: Sent) {
    const res = await sent.project.api.get(`/events?contactId=${sent.contactId}&limit=100`);
    assert.equal(res.status, 200, res.text);
    return (res.body.data as { name: string; emailId: string | null; data: Record<string, unknown> }[]).filter((e) => e.name !== 'contact.subscribed');
  }

  /** The address's entry on the project's suppression list (GET /suppressions), if any. */
  async function suppression(sent: Sent) {
    const res = await sent.project.api.get(`/suppressions?search=${encodeURIComponent(sent.to)}`);
    assert.equal(res.status, 200, res.text);
    const entry = res.body.data.find((s: { email: string }) => s.email === sent.to);
    return entry && { reason: entry.reason as string, emailId: entry.emailId as string | undefined };
  }

  const subscribed = async (sent: Sent) => (await sent.project.api.get(`/contacts/${sent.contactId}`)).body.subscribed;

  test('a permanent bounce: BOUNCED, bounced_at, email.bounced (hard), contact unsubscribed and suppressed', async () => {
    const sent = await sentEmail();
    const res = await post(sns.notification(sesNotification('Bounce', sent.messageId, sent.to)));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.result, 'applied');
    const row = await record(sent);
    assert.equal(row.status, 'BOUNCED');
    assert.ok(row.bounced_at);
    assert.match(row.last_error ?? '', /550 5\.1\.1/);
    const events = await eventsOf(sent);
    assert.deepEqual(events.map((e) => e.name).sort(), ['contact.unsubscribed', 'email.bounced']);
    const bounced = events.find((e) => e.name === 'email.bounced')!;
    assert.equal(bounced.emailId, sent.emailId);
    assert.equal(bounced.data.emailId, sent.emailId);
    assert.equal(bounced.data.bounceType, 'hard');
    assert.equal(await subscribed(sent), false);
    assert.deepEqual(await suppression(sent), { reason: 'HARD_BOUNCE', emailId: sent.emailId });
  });

  test('a transient bounce records email.bounced (soft) only', async () => {
    const sent = await sentEmail();
    const message = sesNotification('Bounce', sent.messageId, sent.to);
    message.bounce = { bounceType: 'Transient', bounceSubType: 'MailboxFull', bouncedRecipients: [{ emailAddress: sent.to }], timestamp: new Date().toISOString() };
    const res = await post(sns.notification(message), 'application/json');
    assert.equal(res.status, 200, res.text);
    assert.equal((await record(sent)).status, 'SENT');
    assert.equal((await record(sent)).bounced_at, null);
    const events = await eventsOf(sent);
    assert.deepEqual(
      events.map((e) => [e.name, e.data.bounceType]),
      [['email.bounced', 'soft']],
    );
    assert.equal(await subscribed(sent), true);
    assert.equal(await suppression(sent), undefined);
  });

  test('a complaint: COMPLAINED, complained_at, email.complained, unsubscribed, suppressed (complaint)', async () => {
    const sent = await sentEmail(undefined, 'DELIVERED');
    const res = await post(sns.notification(sesNotification('Complaint', sent.messageId, sent.to), { version: '2', subject: 'Amazon SES Email Event Notification' }));
    assert.equal(res.status, 200, res.text);
    const row = await record(sent);
    assert.equal(row.status, 'COMPLAINED');
    assert.ok(row.complained_at);
    const events = await eventsOf(sent);
    assert.deepEqual(events.map((e) => e.name).sort(), ['contact.unsubscribed', 'email.complained']);
    assert.equal(events.find((e) => e.name === 'email.complained')!.emailId, sent.emailId);
    assert.equal(await subscribed(sent), false);
    assert.deepEqual(await suppression(sent), { reason: 'COMPLAINT', emailId: sent.emailId });
  });

  test('a delivery: DELIVERED and email.delivered; it never moves a record back (a bounced one stays BOUNCED)', async () => {
    const sent = await sentEmail();
    // Matched through commonHeaders alone, the way SES reports it when original headers are off.
    const message = sesNotification('Delivery', sent.messageId, sent.to);
    delete (message.mail as { headers?: unknown }).headers;
    assert.equal((await post(sns.notification(message))).status, 200);
    const row = await record(sent);
    assert.equal(row.status, 'DELIVERED');
    assert.ok(row.delivered_at);
    const events = await eventsOf(sent);
    assert.deepEqual(
      events.map((e) => [e.name, e.emailId]),
      [['email.delivered', sent.emailId]],
    );

    const bounced = await sentEmail(sent.project, 'BOUNCED');
    assert.equal((await post(sns.notification(sesNotification('Delivery', bounced.messageId, bounced.to)))).status, 200);
    assert.equal((await record(bounced)).status, 'BOUNCED');
  });

  test('a redelivered notification (same SNS MessageId) changes nothing; a second bounce for one record adds no event', async () => {
    const sent = await sentEmail();
    const notification = sns.notification(sesNotification('Bounce', sent.messageId, sent.to));
    assert.equal((await post(notification)).body.result, 'applied');
    const first = await record(sent);
    const eventsBefore = await eventsOf(sent);
    const again = await post(notification);
    assert.equal(again.status, 200);
    assert.equal(again.body.result, 'duplicate');
    // SES itself can report one bounce twice (new SNS MessageId): the record's update is idempotent.
    assert.equal((await post(sns.notification(sesNotification('Bounce', sent.messageId, sent.to)))).status, 200);
    assert.deepEqual(await record(sent), first);
    assert.equal((await eventsOf(sent)).length, eventsBefore.length);

    const transient = sesNotification('Bounce', sent.messageId, sent.to);
    transient.bounce = { bounceType: 'Transient', bounceSubType: 'General', bouncedRecipients: [], timestamp: new Date().toISOString() };
    const soft = sns.notification(transient);
    await post(soft);
    await post(soft);
    assert.equal((await eventsOf(sent)).filter((e) => e.data.bounceType === 'soft').length, 1, 'a redelivered soft bounce is recorded once');
  });

  test('a signature made with another key, or an altered message → 403; nothing changes', async () => {
    const sent = await sentEmail();
    const forged = sns.notification(sesNotification('Bounce', sent.messageId, sent.to), { key: makeCertificate().key });
    const res = await post(forged);
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'INVALID_SIGNATURE');

    const genuine = sns.notification(sesNotification('Delivery', sent.messageId, sent.to));
    const altered = { ...genuine, Message: genuine.Message!.replace('"Delivery"', '"Complaint"') };
    assert.equal((await post(altered)).status, 403);
    assert.equal((await post({ ...genuine, Subject: 'added after signing' })).status, 403);
    assert.equal((await post({ ...genuine, Signature: 'AAAA' })).status, 403);

    assert.equal((await record(sent)).status, 'SENT');
    assert.deepEqual(await eventsOf(sent), []);
    assert.equal(await subscribed(sent), true);
    assert.equal(await suppression(sent), undefined);
  });

  test('a certificate URL off the Amazon SNS hosts, not https or not .pem → 403 without fetching it', async () => {
    const sent = await sentEmail();
    const before = sns.requests.length;
    for (const certUrl of [
      'https://sns.eu-west-1.amazonaws.com.evil.test/cert.pem',
      'https://evil.test/sns.eu-west-1.amazonaws.com/cert.pem',
      'https://s3.amazonaws.com/cert.pem',
      'http://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0000.pem',
      'https://sns.eu-west-1.amazonaws.com:8443/SimpleNotificationService-0000.pem',
      'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0000.txt',
      'not a url',
    ]) {
      const res = await post(sns.notification(sesNotification('Bounce', sent.messageId, sent.to), { certUrl }));
      assert.equal(res.status, 403, `${certUrl}: ${res.text}`);
      assert.equal(res.body.error.code, 'INVALID_SIGNATURE');
    }
    assert.equal(sns.requests.length, before, 'no certificate was fetched');
    // An Amazon-looking URL that serves no certificate is refused too.
    const missing = await post(sns.notification(sesNotification('Bounce', sent.messageId, sent.to), { certUrl: 'https://sns.us-east-1.amazonaws.com/missing.pem' }));
    assert.equal(missing.status, 403);
    assert.equal((await record(sent)).status, 'SENT');
  });

  test('SubscriptionConfirmation visits the SubscribeURL; UnsubscribeConfirmation and off-host URLs are not visited', async () => {
    const confirmation = sns.subscriptionConfirmation();
    const res = await post(confirmation);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.result, 'subscription-confirmed');
    assert.ok(sns.requests.includes(new URL(confirmation.SubscribeURL!).href), 'the SubscribeURL was visited');

    const count = sns.requests.length;
    const offHost = sns.subscriptionConfirmation('SubscriptionConfirmation', 'https://evil.test/?Action=ConfirmSubscription');
    assert.equal((await post(offHost)).status, 400);
    const unsubscribe = await post(sns.subscriptionConfirmation('UnsubscribeConfirmation'));
    assert.equal(unsubscribe.status, 200);
    const forged = { ...sns.subscriptionConfirmation(), Token: 'changed' };
    assert.equal((await post(forged)).status, 403);
    assert.equal(sns.requests.length, count, 'nothing else was visited');
  });

  test('Amazon unreachable (certificate or SubscribeURL) → 503, so SNS delivers again; nothing changes', async () => {
    const sent = await sentEmail();
    server.deps.sns.useTransport(async () => {
      throw new Error('connect ECONNREFUSED');
    });
    const notification = sns.notification(sesNotification('Bounce', sent.messageId, sent.to));
    try {
      const res = await post(notification);
      assert.equal(res.status, 503, res.text);
      assert.equal(res.body.error.code, 'SERVICE_UNAVAILABLE');
    } finally {
      server.deps.sns.useTransport(sns.transport);
    }
    assert.equal((await record(sent)).status, 'SENT');
    const refusing = sns.subscriptionConfirmation('SubscriptionConfirmation', 'https://sns.eu-west-1.amazonaws.com/?Action=Other');
    assert.equal((await post(refusing)).status, 503, 'a SubscribeURL answering 404 is not a confirmation');
    // SNS's redelivery after the outage is applied: the failed attempt was not recorded as processed.
    assert.equal((await post(notification)).body.result, 'applied');
  });

  test('malformed bodies → 400; an unknown Message-ID or another SES event type → 200 and ignored', async () => {
    assert.equal((await post('{"Type":')).status, 400);
    assert.equal((await post('{}')).status, 400);
    const noSignature = { ...sns.notification(sesNotification('Delivery', '<x@y>', 'a@b.test')) };
    delete noSignature.Signature;
    assert.equal((await post(noSignature)).status, 400);
    const unknownType = { ...sns.notification({}), Type: 'Something' };
    assert.equal((await post(unknownType)).status, 400);
    const notJson = sns.sign({ Type: 'Notification', MessageId: randomUUID(), TopicArn: sns.topicArn, Message: 'hello', Timestamp: new Date().toISOString() });
    const res = await post(notJson);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'BAD_REQUEST');

    const unknown = await post(sns.notification(sesNotification('Bounce', `<${randomUUID()}@mail.example.test>`, 'nobody@example.test')));
    assert.equal(unknown.status, 200, unknown.text);
    assert.equal(unknown.body.result, 'ignored');
    const other = await post(sns.notification({ notificationType: 'AmazonSnsSubscriptionSucceeded', message: 'ok' }));
    assert.equal(other.status, 200);
    assert.equal(other.body.result, 'ignored');
  });
});
