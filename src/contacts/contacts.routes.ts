import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { parseConditionText } from './contact-condition.ts';
import { exportContacts } from './contact-export.service.ts';
import { conditionQuery, contactIdParams, contactPage, contactSchema, contactWithMeta, createContactBody, listContactsQuery, updateContactBody } from './contacts.schemas.ts';
import { deleteContact, getContact, listContacts, updateContact, upsertContact } from './contacts.service.ts';

const tags = ['contacts'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];

/** the API reference (Contacts): create or upsert, read, update, delete and list (auth: secret key or session). */
export const contactsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/contacts',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'List contacts (cursor pagination), optionally those a condition tree selects',
        querystring: listContactsQuery,
        response: { 200: contactPage },
      },
    },
    async (request) => listContacts(deps, projectOf(request).id, request.query),
  );

  app.get(
    '/contacts/export',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'The contacts a condition tree selects (all without one) as CSV, streamed: email, subscribed, createdAt, updatedAt, then one column per data key',
        querystring: z.object({ condition: conditionQuery }),
        response: { 200: z.string().describe('text/csv') },
      },
    },
    async (request, reply) => {
      const csv = await exportContacts(deps, projectOf(request).id, parseConditionText(request.query.condition));
      return (
        reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="contacts.csv"')
          // A stream is piped as it is, never serialized: the schema only documents the body.
          .send(Readable.from(csv) as unknown as string)
      );
    },
  );

  app.post(
    '/contacts',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'Create or update a contact by email (201 created, 200 updated)',
        body: createContactBody,
        response: { 200: contactWithMeta, 201: contactWithMeta },
      },
    },
    async (request, reply) => {
      const { contact, isNew } = await upsertContact(deps, projectOf(request).id, request.body);
      return reply.status(isNew ? 201 : 200).send({ ...contact, _meta: { isNew, isUpdate: !isNew } });
    },
  );

  app.get(
    '/contacts/:id',
    { config: { auth: 'project' }, schema: { tags, security, summary: 'One contact', params: contactIdParams, response: { 200: contactSchema } } },
    async (request) => getContact(deps, projectOf(request).id, request.params.id),
  );

  app.patch(
    '/contacts/:id',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'Update a contact (data has patch semantics; snoozedUntil snoozes, null ends a snooze)',
        params: contactIdParams,
        body: updateContactBody,
        response: { 200: contactSchema },
      },
    },
    async (request) => updateContact(deps, projectOf(request).id, request.params.id, request.body),
  );

  app.delete(
    '/contacts/:id',
    { config: { auth: 'project' }, schema: { tags, security, summary: 'Delete a contact and its events', params: contactIdParams, response: { 204: z.null() } } },
    async (request, reply) => {
      await deleteContact(deps, projectOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
