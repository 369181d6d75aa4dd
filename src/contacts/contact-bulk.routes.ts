import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { bulkBody, jobAccepted, jobParams, jobStatusResponse, lookupBody, lookupResponse } from './contact-bulk.schemas.ts';
import { BULK_TYPES, type BulkOperation, getJob, lookupContacts, queueBulk } from './contact-bulk.service.ts';

const tags = ['contacts'];
const security: Record<string, string[]>[] = [{ apiKey: [] }, { session: [] }];

const OPERATIONS: { path: string; operation: BulkOperation; summary: string }[] = [
  { path: '/contacts/bulk-subscribe', operation: 'subscribe', summary: 'Subscribe up to 1000 contacts by id (queued; also ends a snooze)' },
  { path: '/contacts/bulk-unsubscribe', operation: 'unsubscribe', summary: 'Unsubscribe up to 1000 contacts by id (queued; also ends a snooze)' },
  { path: '/contacts/bulk-delete', operation: 'delete', summary: 'Delete up to 1000 contacts by id (queued)' },
];

/** Email lookup and the queued bulk operations by id (the API reference (Contacts); docs/decisions/contacts-and-events.md). */
export const contactBulkRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.post(
    '/contacts/lookup',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Which of up to 500 emails are contacts (in request order)', body: lookupBody, response: { 200: lookupResponse } },
    },
    async (request) => lookupContacts(deps, projectOf(request).id, request.body.emails),
  );

  for (const { path, operation, summary } of OPERATIONS) {
    app.post(path, { config: { auth: 'project' }, schema: { tags, security, summary, body: bulkBody, response: { 202: jobAccepted } } }, async (request, reply) =>
      reply.status(202).send(await queueBulk(deps, projectOf(request).id, operation, request.body.contactIds)),
    );
  }

  app.get(
    '/contacts/bulk/:jobId',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Progress of a bulk job', params: jobParams, response: { 200: jobStatusResponse } },
    },
    async (request) => getJob(deps, projectOf(request).id, request.params.jobId, BULK_TYPES, 'Bulk job'),
  );
};
