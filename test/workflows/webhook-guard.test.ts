import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { buildWorkflow, enable, type Receiver, startReceiver, track, waitForExecution } from '../kit/workflows.ts';

describe('WEBHOOK SSRF guard (docs/decisions/workflows.md: private and loopback addresses refused unless WEBHOOK_ALLOW_PRIVATE)', () => {
  let receiver: Receiver;
  let server: TestServer;
  before(async () => {
    receiver = await startReceiver();
    server = await startTestServer(); // WEBHOOK_ALLOW_PRIVATE defaults to false
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  test('127.0.0.1, localhost, [::1], 10.x, IPv4-compatible and NAT64 loopback, and the metadata address are refused: the step fails and nothing is called', async () => {
    const project = await createProject(server.url);
    const urls = [
      `${receiver.url}/literal`,
      `http://localhost:${receiver.port}/named`,
      `http://[::1]:${receiver.port}/v6`,
      'http://10.0.0.1/private',
      `http://[::7f00:1]:${receiver.port}/compatible`,
      `http://[64:ff9b::7f00:1]:${receiver.port}/nat64`,
      'http://169.254.169.254/latest/meta-data/',
    ];
    const flow = await buildWorkflow(project.api, { eventName: 'call', allowReentry: true }, [{ type: 'WEBHOOK', config: { url: '{{ event.url }}' } }]);
    await enable(project.api, flow.id);
    for (const url of urls) {
      const contactId = (await track(project.publicApi, uniqueEmail('guard'), 'call', { url })).contact;
      const failed = await waitForExecution(project.api, flow.id, contactId, ['FAILED', 'COMPLETED']);
      assert.equal(failed.status, 'FAILED', url);
      assert.match(failed.error, /private or loopback address/, url);
      const step = failed.steps.find((s: { type: string }) => s.type === 'WEBHOOK');
      assert.equal(step.status, 'FAILED');
    }
    assert.equal(receiver.requests.length, 0);
  });
});
