import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { prepareEnvironment, type SpawnedServer, spawnServer } from '../kit/server.ts';
import { buildWorkflow, enable, eventually } from '../kit/workflows.ts';

const PER_VERSION = 6;

describe('a worker killed while executions of two versions wait (docs/workflow-versions.md)', () => {
  let server: SpawnedServer | undefined;
  let cleanup: () => Promise<void>;
  after(async () => {
    await server?.stop('SIGKILL');
    await cleanup?.();
  });

  test(`SIGKILL while ${PER_VERSION} contacts wait on version 1 and ${PER_VERSION} on version 2; after a restart their events resume each on its own version`, async () => {
    const environment = await prepareEnvironment({});
    cleanup = environment.cleanup;
    server = await spawnServer(environment.env);
    const project = await createProject(server.url);
    const flow = await buildWorkflow(project.api, { eventName: 'renewal-due' }, [
      // Waiting for an event, not a timer: the executions of both versions are surely waiting at the kill.
      { type: 'WAIT_FOR_EVENT', config: { eventName: 'renewed' } },
      { type: 'UPDATE_CONTACT', config: { data: { reminder: 'version one: 更新のお知らせ' } } },
    ]);
    await enable(project.api, flow.id);
    const emails = new Map<string, string>();
    const track = async (email: string) => {
      const res = await project.publicApi.post('/v1/track', { email, event: 'renewal-due' });
      emails.set(res.body.data.contact, email);
      assert.equal(res.status, 200, res.text);
      return res.body.data.contact as string;
    };
    const waitingCount = async (total: number) =>
      eventually(`${total} executions WAITING`, async () => (await project.api.get(`/workflows/${flow.id}/executions?status=WAITING&limit=1`)).body.total === total, 30_000, 50);

    const first: string[] = [];
    for (let i = 0; i < PER_VERSION; i++) first.push(await track(uniqueEmail('v1')));
    await waitingCount(PER_VERSION);
    const edited = await project.api.patch(`/workflows/${flow.id}/steps/${flow.stepIds[1]}`, { config: { data: { reminder: 'version two: votre abonnement' } } });
    assert.equal(edited.status, 200, edited.text);
    const second: string[] = [];
    for (let i = 0; i < PER_VERSION; i++) second.push(await track(uniqueEmail('v2')));
    await waitingCount(2 * PER_VERSION);

    await server.stop('SIGKILL');
    server = await spawnServer(environment.env);
    const api = client(server.url, { key: project.secretKey });
    const publicApi = client(server.url, { key: project.publicKey });
    for (const email of emails.values()) assert.equal((await publicApi.post('/v1/track', { email, event: 'renewed' })).status, 200);
    await eventually(
      'every execution COMPLETED',
      async () => (await api.get(`/workflows/${flow.id}/executions?status=COMPLETED&limit=1`)).body.total === 2 * PER_VERSION,
      90_000,
      250,
    );

    const all = (await api.get(`/workflows/${flow.id}/executions?limit=100`)).body.data as Array<{ contactId: string; status: string; workflowVersion: number }>;
    assert.equal(all.length, 2 * PER_VERSION, 'no execution lost or doubled');
    for (const [contacts, version, reminder] of [
      [first, 1, 'version one: 更新のお知らせ'],
      [second, 2, 'version two: votre abonnement'],
    ] as const) {
      for (const contactId of contacts) {
        assert.equal(all.find((e) => e.contactId === contactId)?.workflowVersion, version);
        const contact = await api.get(`/contacts/${contactId}`);
        assert.deepEqual(contact.body.data, { reminder }, `a contact of version ${version} ran that version's step`);
      }
    }
  });
});
