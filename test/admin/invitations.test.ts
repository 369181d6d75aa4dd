import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount, createProject, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { type SinkMessage, type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

// Inviting an address with no account (docs/decisions/accounts.md, "Invitations").
describe('POST /projects/{id}/members for an address with no account: an invitation mail, membership once the address is confirmed', () => {
  let server: TestServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    server = await startTestServer({ SMTP_URL: sink.url, PUBLIC_URL: 'https://mail.example.test' });
  });
  after(async () => {
    await server.close();
    await sink.close();
  });

  async function mailTo(address: string, subject: RegExp): Promise<SinkMessage> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = sink.messages.find((m) => m.envelope.to.includes(address) && subject.test(m.parsed.subject ?? ''));
      if (found) return found;
      if (Date.now() > deadline) assert.fail(`no message "${subject}" to ${address}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  test('the invitation is mailed from the system sender, audited, and the confirmed account joins with the invited role', async () => {
    const project = await createProject(server.url, { name: 'Fjord Coffee — 北欧' });
    const invitee = uniqueEmail('Sigrid');
    const invited = await project.dashboard.post(`/projects/${project.id}/members`, { email: invitee.toUpperCase(), role: 'ADMIN' });
    assert.equal(invited.status, 202, invited.text);
    assert.equal(invited.body.invited, true);
    assert.equal(invited.body.email, invitee.toLowerCase());
    assert.equal(invited.body.role, 'ADMIN');

    const mail = await mailTo(invitee.toLowerCase(), /invited you to Fjord Coffee — 北欧/);
    assert.equal(mail.parsed.subject, `${project.owner.email} invited you to Fjord Coffee — 北欧 on Mailroom`);
    assert.equal(mail.envelope.from, 'no-reply@mail.example.test');
    assert.match(mail.parsed.text ?? '', /as ADMIN/);
    assert.ok((mail.parsed.html as string).includes(`https://mail.example.test/signup?email=${encodeURIComponent(invitee.toLowerCase())}`));

    const audit = await project.dashboard.get(`/projects/${project.id}/audit-log?action=member.invited`);
    assert.deepEqual(
      audit.body.data.map((e: { details: unknown }) => e.details),
      [{ email: invitee.toLowerCase(), role: 'ADMIN' }],
    );

    // Signing up is not enough: anyone can type an address. Confirming it is.
    const account = await createAccount(server.url, invitee.toLowerCase());
    const before = await client(server.url).get('/users/@me/projects', { cookie: account.cookie });
    assert.deepEqual(before.body.data, []);
    assert.equal((await client(server.url).post('/auth/request-verification', undefined, { cookie: account.cookie })).status, 202);
    const token = /token to POST \/auth\/verify-email:\n(\S+)/.exec((await mailTo(invitee.toLowerCase(), /Confirm your email address/)).parsed.text ?? '')![1]!;
    assert.equal((await client(server.url).post('/auth/verify-email', { token })).status, 200);
    const after = await client(server.url).get('/users/@me/projects', { cookie: account.cookie });
    assert.deepEqual(
      after.body.data.map((p: { id: string; role: string }) => [p.id, p.role]),
      [[project.id, 'ADMIN']],
    );
    const members = await project.dashboard.get(`/projects/${project.id}/members`);
    assert.ok(members.body.data.some((m: { email: string; role: string }) => m.email === invitee.toLowerCase() && m.role === 'ADMIN'));
  });

  test('an address with an account is added at once (201); a MEMBER may not invite; an ADMIN may not invite an OWNER', async () => {
    const project = await createProject(server.url);
    const colleague = await createAccount(server.url, uniqueEmail('kenji'));
    const added = await project.dashboard.post(`/projects/${project.id}/members`, { email: colleague.email, role: 'MEMBER' });
    assert.equal(added.status, 201, added.text);
    assert.equal(added.body.email, colleague.email);
    const asMember = client(server.url, { cookie: colleague.cookie, projectId: project.id });
    assert.equal((await asMember.post(`/projects/${project.id}/members`, { email: uniqueEmail('stranger'), role: 'MEMBER' })).status, 403);

    const admin = await createAccount(server.url, uniqueEmail('admin'));
    assert.equal((await project.dashboard.post(`/projects/${project.id}/members`, { email: admin.email, role: 'ADMIN' })).status, 201);
    const asAdmin = client(server.url, { cookie: admin.cookie, projectId: project.id });
    assert.equal((await asAdmin.post(`/projects/${project.id}/members`, { email: uniqueEmail('owner'), role: 'OWNER' })).status, 403);
    const invited = await asAdmin.post(`/projects/${project.id}/members`, { email: uniqueEmail('ana'), role: 'MEMBER' });
    assert.equal(invited.status, 202, invited.text);
  });
});
