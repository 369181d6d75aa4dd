import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, pageAs, screenshot, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { buildWorkflow, connect, enable, track, waitForExecution } from '../kit/workflows.ts';

describe('Dashboard: workflows', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  const ui = useDashboardBrowser();
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url }));
  });
  after(async () => {
    await server?.close();
    await sink?.close();
  });

  async function welcomeTemplate(project: TestProject, from: string) {
    const res = await project.api.post('/templates', {
      name: 'Pro welcome',
      subject: 'Welcome to Pro, {{ data.firstName }}',
      body: '<h1>Thanks for upgrading</h1><p>Your Pro plan includes:</p><ul><li>Priority support</li><li>Unlimited projects</li></ul><p>ありがとうございます。</p>',
      from,
      type: 'TRANSACTIONAL',
    });
    assert.equal(res.status, 201, res.text);
    return res.body as { id: string; name: string };
  }

  /** Runs one step of a task, with the page's state in the error when it fails. */
  async function step(page: Page, what: string, run: () => Promise<void>) {
    try {
      await run();
    } catch (error) {
      throw await withPageState(page, new Error(`${what}: ${(error as Error).message}`));
    }
  }

  async function addStep(page: Page, button: string, type: string, fill: (dialog: ReturnType<Page['getByRole']>) => Promise<void>) {
    await page.getByRole('button', { name: button, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a step' });
    await dialog.getByRole('button', { name: type, exact: true }).click();
    await fill(dialog);
    await dialog.getByRole('button', { name: 'Add step' }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  async function choose(page: Page, scope: ReturnType<Page['getByRole']>, combobox: string, option: string) {
    await scope.getByRole('combobox', { name: combobox }).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  }

  test('a user draws TRIGGER → CONDITION → (yes) DELAY → SEND_EMAIL, (no) EXIT by mouse, enables it, and follows two contacts to COMPLETED and EXITED', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const template = await welcomeTemplate(project, from);
    // The contacts exist first, so the condition's field picker knows their data key `plan`.
    const proContact = await project.api.post('/contacts', { email: 'amara@example.org', data: { plan: 'pro', firstName: 'Amara' } });
    const freeContact = await project.api.post('/contacts', { email: 'lin.wei@example.cn', data: { plan: 'free', firstName: '李伟' } });
    assert.equal(proContact.status, 201, proContact.text);
    const [pro, free] = [proContact.body.id as string, freeContact.body.id as string];
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await step(page, 'create the workflow', async () => {
        await page.goto(`/p/${project.id}`);
        await page.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Workflows' }).click();
        await page.getByText('No workflow yet').waitFor();
        await page.getByRole('button', { name: 'New workflow' }).click();
        const dialog = page.getByRole('dialog', { name: 'New workflow' });
        await dialog.getByRole('textbox', { name: 'Name' }).fill('Upgrade journey — アップグレード');
        await dialog.getByRole('textbox', { name: 'Trigger event' }).fill('plan-chosen');
        await dialog.getByRole('button', { name: 'Create workflow' }).click();
        await page.getByRole('region', { name: 'Workflow canvas' }).waitFor();
      });
      await step(page, 'draw the graph', async () => {
        await addStep(page, 'Add a step after Trigger', 'Condition', async (dialog) => {
          // The shared filter row: a field from the contact's data, an operator fitting a text field.
          await dialog.getByRole('combobox', { name: 'Field of the condition' }).selectOption({ label: 'plan' });
          await dialog.getByRole('combobox', { name: 'Condition of the condition' }).selectOption({ label: 'is' });
          await dialog.getByRole('textbox', { name: 'Value of the condition' }).fill('pro');
          await assertAccessible(page, 'the condition step form');
          await screenshot(page, 'workflow-condition');
        });
        await addStep(page, 'Add a step after Condition on yes', 'Delay', async (dialog) => {
          await dialog.getByRole('textbox', { name: 'Wait' }).fill('1');
          await choose(page, dialog, 'Unit', 'seconds');
        });
        await addStep(page, 'Add a step after Delay', 'Send email', async (dialog) => {
          await choose(page, dialog, 'Template', template.name);
          await dialog.getByText('Subject: Welcome to Pro').waitFor();
          await dialog.getByText('Preview (without a contact): Welcome to Pro').waitFor();
          await dialog.frameLocator('iframe[title="Preview of the template Pro welcome"]').getByRole('heading', { name: 'Thanks for upgrading' }).waitFor();
        });
        await addStep(page, 'Add a step after Condition on no', 'Exit', async (dialog) => {
          await dialog.getByRole('textbox', { name: 'Reason' }).fill('not on Pro');
        });
        const canvas = page.getByRole('region', { name: 'Workflow canvas' });
        for (const name of ['Trigger', 'Condition', 'Delay', 'Send email', 'Exit']) await canvas.getByRole('button', { name: `Open step ${name}` }).waitFor();
        await assertAccessible(page, 'the workflow canvas');
      });
      await step(page, 'insert a step, undo it with the button, redo it with Ctrl+Shift+Z, undo it with Ctrl+Z', async () => {
        const graphNow = async () => {
          const g = (await project.api.get('/workflows')).body.data[0] as { steps: { id: string; type: string }[]; transitions: { fromStepId: string; toStepId: string }[] };
          const typeOf = (id: string) => g.steps.find((s) => s.id === id)!.type;
          return { types: g.steps.map((s) => s.type).sort(), edges: g.transitions.map((t) => `${typeOf(t.fromStepId)}→${typeOf(t.toStepId)}`).sort() };
        };
        const before = await graphNow();
        await addStep(page, 'Insert a step between Delay and Send email', 'Update contact', async (dialog) => {
          await dialog.getByRole('textbox', { name: 'Data (JSON)' }).fill('{"stage": "upgraded — 升级"}');
        });
        const inserted = await graphNow();
        assert.ok(inserted.edges.includes('DELAY→UPDATE_CONTACT') && inserted.edges.includes('UPDATE_CONTACT→SEND_EMAIL'), inserted.edges.join(', '));
        await page.getByRole('button', { name: 'Undo add Update contact' }).click();
        await page.getByRole('button', { name: 'Redo add Update contact' }).waitFor();
        assert.deepEqual(await graphNow(), before);
        await page.keyboard.press('Control+Shift+Z');
        await page.getByRole('button', { name: 'Undo add Update contact' }).waitFor();
        assert.deepEqual(await graphNow(), inserted);
        await page.keyboard.press('Control+Z');
        await page.getByRole('button', { name: 'Redo add Update contact' }).waitFor();
        assert.deepEqual(await graphNow(), before);
        await assertAccessible(page, 'the canvas with undo and redo');
      });
      await step(page, 'enable it', async () => {
        await page.getByRole('switch', { name: 'Enable the workflow' }).click();
        await page.getByRole('switch', { name: 'Disable the workflow' }).waitFor();
      });
      const graph = (await project.api.get('/workflows')).body.data[0];
      assert.deepEqual(graph.steps.map((s: { type: string }) => s.type).sort(), ['CONDITION', 'DELAY', 'EXIT', 'SEND_EMAIL', 'TRIGGER']);
      const condition = graph.steps.find((s: { type: string }) => s.type === 'CONDITION');
      assert.deepEqual(condition.config, { field: 'data.plan', operator: 'equals', value: 'pro' });
      assert.deepEqual(graph.transitions.map((t: { branch: string | null }) => t.branch ?? 'next').sort(), ['next', 'next', 'no', 'yes']);

      await track(project.publicApi, 'amara@example.org', 'plan-chosen');
      await track(project.publicApi, 'lin.wei@example.cn', 'plan-chosen');
      const done = await waitForExecution(project.api, graph.id, pro, ['COMPLETED', 'EXITED', 'FAILED'], 60_000);
      const exited = await waitForExecution(project.api, graph.id, free, ['COMPLETED', 'EXITED', 'FAILED'], 60_000);

      await step(page, 'follow both traces', async () => {
        await page.getByRole('tab', { name: 'Executions' }).click();
        const list = page.getByRole('list', { name: 'Executions' });
        await list.getByText('COMPLETED').or(list.getByText('EXITED')).first().waitFor({ timeout: 30_000 });
        await page.getByRole('button', { name: `Show the trace of execution ${free.slice(0, 8)}` }).click();
        await page.getByRole('heading', { name: /^Trace: EXITED/ }).waitFor();
        await page.getByRole('button', { name: `Show the trace of execution ${pro.slice(0, 8)}` }).click();
        await page.getByRole('heading', { name: /^Trace: COMPLETED/ }).waitFor();
        await page.getByRole('list', { name: 'Trace' }).getByRole('link', { name: 'The email sent' }).waitFor();
        await assertAccessible(page, 'a trace on the canvas');
        await screenshot(page, 'workflow-trace');
      });
      assert.equal(done.status, 'COMPLETED', done.error);
      assert.equal(exited.status, 'EXITED', exited.error);
      await sink.waitForMessages(1, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(sink.messages.length, 1, 'the test SMTP server holds exactly one message');
      assert.deepEqual(sink.messages[0]!.envelope.to, ['amara@example.org']);
    } finally {
      await page.context().close();
    }
  });

  test('a dry run for a contact shows, on the canvas and as a list, the same path the real run then takes', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const template = await welcomeTemplate(project, from);
    const flow = await buildWorkflow(project.api, { name: 'Renewal', eventName: 'renewal-due' }, [
      { type: 'CONDITION', name: 'Is Pro?', config: { field: 'data.plan', operator: 'equals', value: 'pro' } },
    ]);
    const condition = flow.stepIds[0]!;
    const send = (
      await project.api.post(`/workflows/${flow.id}/steps`, {
        type: 'SEND_EMAIL',
        name: 'Thank-you email',
        config: { templateId: template.id },
        after: { stepId: condition, branch: 'yes' },
      })
    ).body.id;
    const exit = (await project.api.post(`/workflows/${flow.id}/steps`, { type: 'EXIT', name: 'Not Pro', config: { reason: 'free plan' } })).body.id;
    await connect(project.api, flow.id, condition, exit, 'no');
    const contact = await project.api.post('/contacts', { email: 'sofia@example.es', data: { plan: 'pro', firstName: 'Sofía' } });
    assert.equal(contact.status, 201, contact.text);
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await step(page, 'run the dry run', async () => {
        await page.goto(`/p/${project.id}/workflows/${flow.id}`);
        await page.getByRole('region', { name: 'Workflow canvas' }).waitFor();
        await page.getByRole('tab', { name: 'Dry run' }).click();
        await page.getByRole('textbox', { name: 'Contact email' }).fill('sofia@example.es');
        await page.getByRole('button', { name: 'Run dry run' }).click();
        await page.getByRole('heading', { name: 'Result: COMPLETED' }).waitFor();
        const path = page.getByRole('list', { name: 'Dry run path' });
        await path.getByText('Is Pro? → yes').waitFor();
        await path.getByText('Would send "Welcome to Pro, Sofía" to sofia@example.es.').waitFor();
        await page.getByText('Highlighted: the dry run’s path.').waitFor();
        await assertAccessible(page, 'a dry run');
        await screenshot(page, 'workflow-dry-run');
      });
      const dry = await project.api.post(`/workflows/${flow.id}/simulate`, { contactId: contact.body.id });
      assert.equal(sink.messages.filter((m) => m.envelope.to.includes('sofia@example.es')).length, 0, 'the dry run sent nothing');
      await enable(project.api, flow.id);
      await track(project.publicApi, 'sofia@example.es', 'renewal-due');
      const real = await waitForExecution(project.api, flow.id, contact.body.id, ['COMPLETED', 'EXITED', 'FAILED'], 60_000);
      assert.deepEqual(
        real.steps.map((s: { stepId: string }) => s.stepId),
        dry.body.path.map((p: { stepId: string }) => p.stepId),
      );
      assert.deepEqual(
        real.steps.map((s: { stepId: string }) => s.stepId),
        [flow.triggerId, condition, send],
      );
      assert.equal(real.status, dry.body.result);

      await step(page, 'an unsaved edit of the condition survives a reload', async () => {
        await page.getByRole('region', { name: 'Workflow canvas' }).getByRole('button', { name: 'Open step Is Pro?' }).click();
        const form = page.getByRole('form', { name: 'Condition settings' });
        await form.getByRole('textbox', { name: 'Value of the condition' }).fill('エンタープライズ');
        await page.reload();
        await page.getByText('Unsaved changes restored').waitFor();
        const restored = page.getByRole('form', { name: 'Condition settings' });
        assert.equal(await restored.getByRole('textbox', { name: 'Value of the condition' }).inputValue(), 'エンタープライズ');
        assert.equal((await project.api.get(`/workflows/${flow.id}`)).body.steps.find((s: { id: string }) => s.id === condition).config.value, 'pro');
        await restored.getByRole('button', { name: 'Save step' }).click();
        await page.getByText('Unsaved changes restored').waitFor({ state: 'detached' });
      });
      const saved = (await project.api.get(`/workflows/${flow.id}`)).body.steps.find((s: { id: string }) => s.id === condition);
      assert.deepEqual(saved.config, { field: 'data.plan', operator: 'equals', value: 'エンタープライズ' });

      await step(page, 'Delete on a focused step asks, then deletes it', async () => {
        const asked = new Promise<string>((resolve) =>
          page.once('dialog', async (dialog) => {
            resolve(dialog.message());
            await dialog.accept();
          }),
        );
        await page.getByRole('region', { name: 'Workflow canvas' }).getByRole('button', { name: 'Open step Thank-you email' }).focus();
        await page.keyboard.press('Delete');
        assert.match(await asked, /^Delete the step Thank-you email\?/);
        await page.getByRole('region', { name: 'Workflow canvas' }).getByRole('button', { name: 'Open step Thank-you email' }).waitFor({ state: 'detached' });
        await page.getByRole('button', { name: 'Undo delete Send email' }).waitFor();
      });
      const left = (await project.api.get(`/workflows/${flow.id}`)).body.steps.map((s: { type: string }) => s.type).sort();
      assert.deepEqual(left, ['CONDITION', 'EXIT', 'TRIGGER']);
    } finally {
      await page.context().close();
    }
  });

  test('editing the enabled workflow while a contact waits in the DELAY: it finishes on its old version, a new contact takes the new path', async () => {
    const project = (await projectWithSender(server.url, dns)).project;
    const flow = await buildWorkflow(project.api, { name: 'Trial follow-up', eventName: 'trial-started', allowReentry: true }, [
      { type: 'DELAY', config: { amount: 40, unit: 'seconds' } },
      { type: 'EXIT', name: 'Done', config: { reason: 'follow-up over' } },
    ]);
    await enable(project.api, flow.id);
    const early = (await track(project.publicApi, 'early@example.de', 'trial-started')).contact;
    await waitForExecution(project.api, flow.id, early, ['WAITING']);
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await step(page, 'insert an UPDATE_CONTACT after the DELAY', async () => {
        await page.goto(`/p/${project.id}/workflows/${flow.id}`);
        await page.getByRole('region', { name: 'Workflow canvas' }).getByLabel('1 waiting here').waitFor();
        await addStep(page, 'Insert a step between Delay and Done', 'Update contact', async (dialog) => {
          await dialog.getByRole('textbox', { name: 'Data (JSON)' }).fill('{"tier": "gold", "note": "série spéciale"}');
        });
        await page.getByRole('button', { name: 'Open step Update contact' }).waitFor();
        await page.getByRole('tab', { name: 'Versions' }).click();
        const versions = page.getByRole('list', { name: 'Versions' });
        await versions.getByText('Added UPDATE_CONTACT').waitFor();
      });
      const stillWaiting = await waitForExecution(project.api, flow.id, early, ['WAITING', 'EXITED', 'FAILED', 'COMPLETED']);
      assert.deepEqual([stillWaiting.status, stillWaiting.workflowVersion], ['WAITING', 1], 'the edit came while the contact waited in the DELAY');
      const late = (await track(project.publicApi, 'late@example.de', 'trial-started')).contact;
      const earlyDone = await waitForExecution(project.api, flow.id, early, ['EXITED', 'FAILED', 'COMPLETED'], 90_000);
      const lateDone = await waitForExecution(project.api, flow.id, late, ['EXITED', 'FAILED', 'COMPLETED'], 90_000);
      assert.equal(earlyDone.status, 'EXITED', earlyDone.error);
      assert.deepEqual(
        earlyDone.steps.map((s: { type: string }) => s.type),
        ['TRIGGER', 'DELAY', 'EXIT'],
      );
      assert.deepEqual((await project.api.get(`/contacts/${early}`)).body.data, {});
      assert.equal(lateDone.status, 'EXITED', lateDone.error);
      assert.deepEqual(
        lateDone.steps.map((s: { type: string }) => s.type),
        ['TRIGGER', 'DELAY', 'UPDATE_CONTACT', 'EXIT'],
      );
      assert.deepEqual((await project.api.get(`/contacts/${late}`)).body.data, { tier: 'gold', note: 'série spéciale' });
      await step(page, "the waiting contact's trace is on its old version", async () => {
        await page.getByRole('tab', { name: 'Executions' }).click();
        await page.getByRole('button', { name: `Show the trace of execution ${early.slice(0, 8)}` }).click();
        await page.getByRole('heading', { name: 'Trace: EXITED on version 1' }).waitFor();
        await page.getByRole('region', { name: 'Workflow canvas, version 1' }).waitFor();
        await page.getByRole('button', { name: `Show the trace of execution ${late.slice(0, 8)}` }).click();
        await page.getByRole('heading', { name: 'Trace: EXITED on version 2' }).waitFor();
        await page.getByRole('region', { name: 'Workflow canvas' }).getByRole('button', { name: 'Open step Update contact' }).waitFor();
        await assertAccessible(page, 'a trace on an older version');
      });
    } finally {
      await page.context().close();
    }
  });
});
