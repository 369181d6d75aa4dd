import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Account, createAccount, createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

describe('projects and members', () => {
  let server: TestServer;
  let http: ReturnType<typeof client>;
  before(async () => {
    server = await startTestServer();
    http = client(server.url);
  });
  after(() => server.close());

  /** A new account added to the project with this role by its owner. */
  async function join(project: TestProject, role: 'OWNER' | 'ADMIN' | 'MEMBER'): Promise<Account> {
    const account = await createAccount(server.url);
    const res = await http.post(`/projects/${project.id}/members`, { email: account.email, role }, { cookie: project.owner.cookie });
    assert.equal(res.status, 201, res.text);
    return account;
  }

  test('POST /users/@me/projects creates a project with both keys; the creator is its OWNER', async () => {
    const owner = await createAccount(server.url);
    const res = await http.post('/users/@me/projects', { name: '  Acme  ' }, { cookie: owner.cookie });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'disabled', 'id', 'name', 'publicKey', 'requireTwoFactor', 'secretKey', 'tracking', 'updatedAt']);
    assert.deepEqual(res.body.tracking, { opens: 'marketing', clicks: 'all' });
    assert.equal(res.body.name, 'Acme');
    assert.match(res.body.publicKey, /^pk_/);
    assert.match(res.body.secretKey, /^sk_/);
    assert.equal(res.body.disabled, false);
    const members = await http.get(`/projects/${res.body.id}/members`, { cookie: owner.cookie });
    assert.deepEqual(
      members.body.data.map((m: any) => [m.userId, m.email, m.role]),
      [[owner.id, owner.email, 'OWNER']],
    );
  });

  test('creating a project needs a session and a name', async () => {
    const owner = await createAccount(server.url);
    assert.equal((await http.post('/users/@me/projects', { name: 'x' })).status, 401);
    const empty = await http.post('/users/@me/projects', { name: '   ' }, { cookie: owner.cookie });
    assert.equal(empty.status, 422);
    assert.deepEqual(
      empty.body.error.errors.map((e: any) => [e.field, e.code]),
      [['name', 'too_small']],
    );
    const missing = await http.post('/users/@me/projects', {}, { cookie: owner.cookie });
    assert.deepEqual(
      missing.body.error.errors.map((e: any) => [e.field, e.code, e.received]),
      [['name', 'invalid_type', 'undefined']],
    );
  });

  test('GET /users/@me/projects lists my projects with my role; keys only for OWNER and ADMIN', async () => {
    const project = await createProject(server.url);
    const admin = await join(project, 'ADMIN');
    const member = await join(project, 'MEMBER');
    const mine = await createProject(server.url, { owner: member });

    const asOwner = await http.get('/users/@me/projects', { cookie: project.owner.cookie });
    assert.equal(asOwner.status, 200);
    assert.deepEqual(
      asOwner.body.data.map((p: any) => [p.id, p.role, p.secretKey]),
      [[project.id, 'OWNER', project.secretKey]],
    );

    const asAdmin = await http.get('/users/@me/projects', { cookie: admin.cookie });
    assert.deepEqual(
      asAdmin.body.data.map((p: any) => [p.id, p.role, p.publicKey, p.secretKey]),
      [[project.id, 'ADMIN', project.publicKey, project.secretKey]],
    );

    const asMember = await http.get('/users/@me/projects', { cookie: member.cookie });
    const byId = new Map(asMember.body.data.map((p: any) => [p.id, p]));
    const joined: any = byId.get(project.id);
    assert.equal(joined.role, 'MEMBER');
    assert.equal(joined.name, project.name);
    assert.ok(!('publicKey' in joined) && !('secretKey' in joined), 'a MEMBER does not see the keys');
    assert.equal((byId.get(mine.id) as any).secretKey, mine.secretKey, 'but sees the keys of a project they own');

    assert.equal((await http.get('/users/@me/projects')).status, 401);
  });

  test('PATCH renames (OWNER or ADMIN); MEMBER → 403; a non-member or unknown id → 404; a bad id → 422', async () => {
    const project = await createProject(server.url);
    const admin = await join(project, 'ADMIN');
    const member = await join(project, 'MEMBER');
    const stranger = await createAccount(server.url);

    const renamed = await http.patch(`/users/@me/projects/${project.id}`, { name: 'Renamed' }, { cookie: admin.cookie });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'Renamed');
    assert.equal(renamed.body.secretKey, project.secretKey);
    assert.ok(Date.parse(renamed.body.updatedAt) >= Date.parse(renamed.body.createdAt));

    const byMember = await http.patch(`/users/@me/projects/${project.id}`, { name: 'Nope' }, { cookie: member.cookie });
    assert.equal(byMember.status, 403);
    assert.equal(byMember.body.error.code, 'FORBIDDEN');
    const byStranger = await http.patch(`/users/@me/projects/${project.id}`, { name: 'Nope' }, { cookie: stranger.cookie });
    assert.equal(byStranger.status, 404);
    assert.equal(byStranger.body.error.code, 'NOT_FOUND');
    const unknown = await http.patch(`/users/@me/projects/${randomUUID()}`, { name: 'Nope' }, { cookie: stranger.cookie });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.message, byStranger.body.error.message, 'a project one is not a member of looks like one that does not exist');
    const badId = await http.patch('/users/@me/projects/not-a-uuid', { name: 'Nope' }, { cookie: project.owner.cookie });
    assert.equal(badId.status, 422);
    assert.equal(badId.body.error.errors[0].field, 'id');

    const list = await http.get('/users/@me/projects', { cookie: project.owner.cookie });
    assert.equal(list.body.data[0].name, 'Renamed');
  });

  test('PATCH disabled: true refuses the keys with 403 PROJECT_DISABLED; re-enabling clears the reason and restores them', async () => {
    const project = await createProject(server.url);
    assert.equal((await project.api.get('/v1/whoami')).status, 200);
    const off = await http.patch(`/users/@me/projects/${project.id}`, { disabled: true }, { cookie: project.owner.cookie });
    assert.equal(off.status, 200);
    assert.equal(off.body.disabled, true);
    const refused = await project.api.get('/v1/whoami');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'PROJECT_DISABLED');

    // A suspension by the service carries a reason; re-enabling clears it.
    await server.deps.db.query("UPDATE projects SET disabled_reason = 'bounce rate' WHERE id = $1", [project.id]);
    const on = await http.patch(`/users/@me/projects/${project.id}`, { disabled: false }, { cookie: project.owner.cookie });
    assert.equal(on.status, 200);
    assert.equal(on.body.disabled, false);
    const [row] = await server.deps.db.query<{ disabled_reason: string | null }>('SELECT disabled_reason FROM projects WHERE id = $1', [project.id]);
    assert.equal(row!.disabled_reason, null);
    assert.equal((await project.api.get('/v1/whoami')).status, 200);
  });

  test('regenerate-keys (OWNER or ADMIN) returns new keys; the old ones fail at once; MEMBER → 403', async () => {
    const project = await createProject(server.url);
    const admin = await join(project, 'ADMIN');
    const member = await join(project, 'MEMBER');
    assert.equal((await project.api.get('/v1/whoami')).status, 200);

    const byMember = await http.post(`/users/@me/projects/${project.id}/regenerate-keys`, undefined, { cookie: member.cookie });
    assert.equal(byMember.status, 403);
    assert.equal((await project.api.get('/v1/whoami')).status, 200, 'a refused rotation changes nothing');

    const res = await http.post(`/users/@me/projects/${project.id}/regenerate-keys`, undefined, { cookie: admin.cookie });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['publicKey', 'secretKey']);
    assert.notEqual(res.body.secretKey, project.secretKey);
    assert.notEqual(res.body.publicKey, project.publicKey);
    assert.equal((await project.api.get('/v1/whoami')).status, 401);
    assert.equal((await http.get('/v1/whoami', { key: res.body.secretKey })).status, 200);
    const list = await http.get('/users/@me/projects', { cookie: project.owner.cookie });
    assert.equal(list.body.data[0].secretKey, res.body.secretKey);
  });

  test('DELETE is for the OWNER only; the project and its keys are gone', async () => {
    const project = await createProject(server.url);
    const admin = await join(project, 'ADMIN');
    const member = await join(project, 'MEMBER');
    assert.equal((await project.api.get('/v1/whoami')).status, 200);
    for (const account of [admin, member]) {
      const res = await http.delete(`/users/@me/projects/${project.id}`, undefined, { cookie: account.cookie });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'FORBIDDEN');
    }
    const res = await http.delete(`/users/@me/projects/${project.id}`, undefined, { cookie: project.owner.cookie });
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assert.equal((await project.api.get('/v1/whoami')).status, 401);
    assert.deepEqual((await http.get('/users/@me/projects', { cookie: admin.cookie })).body.data, []);
    assert.equal((await http.delete(`/users/@me/projects/${project.id}`, undefined, { cookie: project.owner.cookie })).status, 404);
  });

  test('members: any member lists them; OWNER and ADMIN invite existing users; MEMBER cannot (403)', async () => {
    const project = await createProject(server.url);
    const admin = await join(project, 'ADMIN');
    const member = await join(project, 'MEMBER');
    const invitee = await createAccount(server.url);

    const list = await http.get(`/projects/${project.id}/members`, { cookie: member.cookie });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((m: any) => [m.email, m.role]),
      [
        [project.owner.email, 'OWNER'],
        [admin.email, 'ADMIN'],
        [member.email, 'MEMBER'],
      ],
    );
    assert.deepEqual(Object.keys(list.body.data[0]).sort(), ['createdAt', 'email', 'role', 'userId']);

    const byMember = await http.post(`/projects/${project.id}/members`, { email: invitee.email, role: 'MEMBER' }, { cookie: member.cookie });
    assert.equal(byMember.status, 403);
    assert.equal(byMember.body.error.code, 'FORBIDDEN');

    const byAdmin = await http.post(`/projects/${project.id}/members`, { email: invitee.email.toUpperCase(), role: 'MEMBER' }, { cookie: admin.cookie });
    assert.equal(byAdmin.status, 201);
    assert.deepEqual([byAdmin.body.userId, byAdmin.body.email, byAdmin.body.role], [invitee.id, invitee.email, 'MEMBER']);
    assert.ok(!Number.isNaN(Date.parse(byAdmin.body.createdAt)));

    const again = await http.post(`/projects/${project.id}/members`, { email: invitee.email, role: 'ADMIN' }, { cookie: admin.cookie });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'CONFLICT');

    // An address with no account is invited by mail instead (docs/decisions/accounts.md, "Invitations").
    const nobodyEmail = uniqueEmail('nobody');
    const nobody = await http.post(`/projects/${project.id}/members`, { email: nobodyEmail, role: 'MEMBER' }, { cookie: admin.cookie });
    assert.equal(nobody.status, 202, nobody.text);
    assert.deepEqual([nobody.body.invited, nobody.body.email, nobody.body.role], [true, nobodyEmail, 'MEMBER']);

    const badRole = await http.post(`/projects/${project.id}/members`, { email: invitee.email, role: 'KING' }, { cookie: admin.cookie });
    assert.equal(badRole.status, 422);
    assert.deepEqual(
      badRole.body.error.errors.map((e: any) => [e.field, e.code]),
      [['role', 'invalid_enum_value']],
    );

    const stranger = await createAccount(server.url);
    assert.equal((await http.get(`/projects/${project.id}/members`, { cookie: stranger.cookie })).status, 404);
    assert.equal((await http.get(`/projects/${project.id}/members`)).status, 401);
  });

  test('only an OWNER grants, changes or removes OWNER; ADMIN manages ADMIN and MEMBER', async () => {
    const project = await createProject(server.url);
    const admin = await join(project, 'ADMIN');
    const member = await join(project, 'MEMBER');
    const url = (userId: string) => `/projects/${project.id}/members/${userId}`;

    const adminGrantsOwner = await http.patch(url(member.id), { role: 'OWNER' }, { cookie: admin.cookie });
    assert.equal(adminGrantsOwner.status, 403);
    const adminInvitesOwner = await http.post(`/projects/${project.id}/members`, { email: (await createAccount(server.url)).email, role: 'OWNER' }, { cookie: admin.cookie });
    assert.equal(adminInvitesOwner.status, 403);
    assert.equal((await http.patch(url(project.owner.id), { role: 'MEMBER' }, { cookie: admin.cookie })).status, 403);
    assert.equal((await http.delete(url(project.owner.id), undefined, { cookie: admin.cookie })).status, 403);

    const promoted = await http.patch(url(member.id), { role: 'ADMIN' }, { cookie: admin.cookie });
    assert.equal(promoted.status, 200);
    assert.deepEqual([promoted.body.userId, promoted.body.role], [member.id, 'ADMIN']);
    assert.equal((await http.patch(url(member.id), { role: 'MEMBER' }, { cookie: admin.cookie })).body.role, 'MEMBER');

    assert.equal((await http.patch(url(admin.id), { role: 'MEMBER' }, { cookie: member.cookie })).status, 403, 'MEMBER cannot change roles');
    assert.equal((await http.delete(url(admin.id), undefined, { cookie: member.cookie })).status, 403, 'MEMBER cannot remove others');

    const ownerGrants = await http.patch(url(admin.id), { role: 'OWNER' }, { cookie: project.owner.cookie });
    assert.equal(ownerGrants.status, 200);
    assert.equal(ownerGrants.body.role, 'OWNER');
    assert.equal((await http.patch(url(randomUUID()), { role: 'MEMBER' }, { cookie: project.owner.cookie })).status, 404);
  });

  test('the last OWNER can be neither demoted nor removed (409); with two owners either may step down', async () => {
    const project = await createProject(server.url);
    const owner = project.owner;
    const url = (userId: string) => `/projects/${project.id}/members/${userId}`;

    const demote = await http.patch(url(owner.id), { role: 'ADMIN' }, { cookie: owner.cookie });
    assert.equal(demote.status, 409);
    assert.equal(demote.body.error.code, 'CONFLICT');
    assert.match(demote.body.error.message, /last OWNER/);
    const leave = await http.delete(url(owner.id), undefined, { cookie: owner.cookie });
    assert.equal(leave.status, 409);
    assert.match(leave.body.error.message, /last OWNER/);

    const second = await join(project, 'OWNER');
    assert.equal((await http.patch(url(owner.id), { role: 'ADMIN' }, { cookie: owner.cookie })).status, 200);
    assert.equal((await http.delete(url(owner.id), undefined, { cookie: second.cookie })).status, 204);
    const members = await http.get(`/projects/${project.id}/members`, { cookie: second.cookie });
    assert.deepEqual(
      members.body.data.map((m: any) => [m.userId, m.role]),
      [[second.id, 'OWNER']],
    );
    assert.equal((await http.get(`/projects/${project.id}/members`, { cookie: owner.cookie })).status, 404, 'a removed member no longer sees the project');
  });

  test('any member may leave a project; ADMIN removes members; a removed member loses session access', async () => {
    const project = await createProject(server.url);
    const admin = await join(project, 'ADMIN');
    const member = await join(project, 'MEMBER');
    const other = await join(project, 'MEMBER');
    assert.equal((await http.get('/v1/whoami', { cookie: member.cookie, projectId: project.id })).status, 200);

    assert.equal((await http.delete(`/projects/${project.id}/members/${member.id}`, undefined, { cookie: member.cookie })).status, 204);
    assert.equal((await http.get('/v1/whoami', { cookie: member.cookie, projectId: project.id })).status, 403);

    assert.equal((await http.delete(`/projects/${project.id}/members/${other.id}`, undefined, { cookie: admin.cookie })).status, 204);
    assert.equal((await http.delete(`/projects/${project.id}/members/${other.id}`, undefined, { cookie: admin.cookie })).status, 404);
    const members = await http.get(`/projects/${project.id}/members`, { cookie: admin.cookie });
    assert.deepEqual(members.body.data.map((m: any) => m.userId).sort(), [admin.id, project.owner.id].sort());
  });
});
