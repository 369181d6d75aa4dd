import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { templatePreview } from '../templates/templates.schemas.ts';
import { campaignRecipients, checkAudience, checkCampaignAudience } from './campaign-audience.service.ts';
import { cancelCampaign, sendCampaign, sendTestEmail } from './campaign-sending.service.ts';
import {
  audienceCheck,
  audienceCheckBody,
  campaignBody,
  campaignEnvelope,
  campaignIdParams,
  campaignPage,
  campaignPreviewBody,
  campaignStats,
  listCampaignsQuery,
  recipientPage,
  recipientsQuery,
  savedCampaignEnvelope,
  sendCampaignBody,
  testCampaignBody,
  testSentResponse,
} from './campaigns.schemas.ts';
import { createCampaign, deleteCampaign, duplicateCampaign, getCampaign, listCampaigns, previewCampaign, replaceCampaign, campaignStats as statsOf } from './campaigns.service.ts';

const tags = ['campaigns'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];
const config = { auth: 'project' as const };
const params = campaignIdParams;

/** the API reference (Campaigns) (auth: secret key or session with X-Project-Id); docs/decisions/campaigns.md. */
export const campaignsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/campaigns',
    { config, schema: { tags, security, summary: 'List campaigns (offset pagination, status filter, search)', querystring: listCampaignsQuery, response: { 200: campaignPage } } },
    async (request) => listCampaigns(deps, projectOf(request).id, request.query),
  );

  app.post(
    '/campaigns',
    { config, schema: { tags, security, summary: 'Create a campaign (DRAFT), with the checks of its content', body: campaignBody, response: { 201: savedCampaignEnvelope } } },
    async (request, reply) => reply.status(201).send({ success: true as const, ...(await createCampaign(deps, projectOf(request).id, request.body)) }),
  );

  app.get('/campaigns/:id', { config, schema: { tags, security, summary: 'One campaign', params, response: { 200: campaignEnvelope } } }, async (request) => ({
    success: true as const,
    data: await getCampaign(deps, projectOf(request).id, request.params.id),
  }));

  app.put(
    '/campaigns/:id',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Replace a DRAFT or SCHEDULED campaign (the create body), with the checks of its content',
        params,
        body: campaignBody,
        response: { 200: savedCampaignEnvelope },
      },
    },
    async (request) => ({ success: true as const, ...(await replaceCampaign(deps, projectOf(request).id, request.params.id, request.body)) }),
  );

  app.delete(
    '/campaigns/:id',
    { config, schema: { tags, security, summary: 'Delete a campaign (SENDING → 409; SCHEDULED is cancelled first)', params, response: { 204: z.null() } } },
    async (request, reply) => {
      await deleteCampaign(deps, projectOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/campaigns/:id/duplicate',
    { config, schema: { tags, security, summary: 'Copy a campaign as a new DRAFT', params, response: { 201: campaignEnvelope } } },
    async (request, reply) => {
      const data = await duplicateCampaign(deps, projectOf(request).id, request.params.id);
      return reply.status(201).send({ success: true as const, data, message: 'Campaign duplicated.' });
    },
  );

  app.post(
    '/campaigns/:id/send',
    { config, schema: { tags, security, summary: 'Send now, or schedule with scheduledFor', params, body: sendCampaignBody, response: { 200: campaignEnvelope } } },
    async (request) => {
      const { campaign, message } = await sendCampaign(deps, projectOf(request).id, request.params.id, request.body?.scheduledFor);
      return { success: true as const, data: campaign, message };
    },
  );

  app.post(
    '/campaigns/:id/cancel',
    { config, schema: { tags, security, summary: 'Cancel a SCHEDULED or SENDING campaign', params, response: { 200: campaignEnvelope } } },
    async (request) => ({ success: true as const, data: await cancelCampaign(deps, projectOf(request).id, request.params.id), message: 'Campaign cancelled.' }),
  );

  app.post(
    '/campaigns/:id/test',
    { config, schema: { tags, security, summary: 'Send one rendered copy, [Test] in the subject', params, body: testCampaignBody, response: { 200: testSentResponse } } },
    async (request) => {
      const data = await sendTestEmail(deps, projectOf(request).id, request.params.id, request.body.email);
      return { success: true as const, message: `Test email sent to ${data.to}.`, data };
    },
  );

  app.post(
    '/campaigns/:id/preview',
    {
      config,
      schema: {
        tags,
        security,
        summary: "Render the saved campaign with a contact's data as sending would, with its checks before a test or a send",
        params,
        body: campaignPreviewBody,
        response: { 200: templatePreview },
      },
    },
    async (request) => previewCampaign(deps, projectOf(request).id, request.params.id, request.body?.contactId),
  );

  app.get(
    '/campaigns/:id/stats',
    { config, schema: { tags, security, summary: 'Counters of the campaign, by outcome', params, response: { 200: z.object({ success: z.literal(true), data: campaignStats }) } } },
    async (request) => ({ success: true as const, data: await statsOf(deps, projectOf(request).id, request.params.id) }),
  );

  app.post(
    '/campaigns/audience',
    {
      config,
      schema: {
        tags,
        security,
        body: audienceCheckBody,
        response: { 200: audienceCheck },
        summary: 'Audience check: how many a send would mail now, how many are excluded and why, with a sample (docs/campaigns.md)',
      },
    },
    async (request) => checkAudience(deps, projectOf(request).id, request.body),
  );

  app.get(
    '/campaigns/:id/audience',
    { config, schema: { tags, security, summary: 'Audience check of a DRAFT or SCHEDULED campaign', params, response: { 200: audienceCheck } } },
    async (request) => checkCampaignAudience(deps, projectOf(request).id, request.params.id),
  );

  app.get(
    '/campaigns/:id/recipients',
    {
      config,
      schema: {
        tags,
        security,
        summary: "The campaign's recipients (its email records) with each one's status",
        params,
        querystring: recipientsQuery,
        response: { 200: recipientPage },
      },
    },
    async (request) => campaignRecipients(deps, projectOf(request).id, request.params.id, request.query),
  );
};
