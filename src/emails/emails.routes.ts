import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { contactIdParams } from '../contacts/contacts.schemas.ts';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { contactEmailsQuery, emailContentSchema, emailDetailSchema, emailIdParams, emailPage } from './emails.schemas.ts';
import { getEmail, getEmailContent, listEmailsOfContact } from './emails.service.ts';

const tags = ['emails'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];

/** docs/decisions/sending.md: GET /emails/{id}, its rendered message, and a contact's records (secret key, or session with X-Project-Id). */
export const emailsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/emails/:id',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'One email record, with the replies it received', params: emailIdParams, response: { 200: emailDetailSchema } },
    },
    async (request) => getEmail(deps, projectOf(request).id, request.params.id),
  );

  app.get(
    '/emails/:id/content',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: "The record's rendered message: headers, subject, HTML and text", params: emailIdParams, response: { 200: emailContentSchema } },
    },
    async (request) => getEmailContent(deps, projectOf(request).id, request.params.id),
  );

  app.get(
    '/contacts/:id/emails',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: "A contact's email records, newest first (cursor pagination)",
        params: contactIdParams,
        querystring: contactEmailsQuery,
        response: { 200: emailPage },
      },
    },
    async (request) => listEmailsOfContact(deps, projectOf(request).id, request.params.id, request.query),
  );
};
