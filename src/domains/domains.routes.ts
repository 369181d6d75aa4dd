import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { createDomainBody, domainIdParams, domainList, domainSchema, projectIdParams, updateDomainBody } from './domains.schemas.ts';
import { createDomain, getDomain, listProjectDomains, removeDomain, updateDomain, verifyDomain } from './domains.service.ts';

const tags = ['domains'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];

/** Sender domains (the API reference (Domains), docs/decisions/domains.md): add, list, verify now, inbound on or off, remove. */
export const domainsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.post(
    '/domains',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'Add a sender domain; returns the DNS records to publish (DKIM required, SPF and DMARC recommended)',
        body: createDomainBody,
        response: { 201: domainSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await createDomain(deps, projectOf(request).id, request.body.domain)),
  );

  app.get(
    '/domains/project/:projectId',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: "The project's domains, verified and pending", params: projectIdParams, response: { 200: domainList } },
    },
    async (request) => ({ data: await listProjectDomains(deps, projectOf(request).id, request.params.projectId) }),
  );

  app.get(
    '/domains/:id',
    { config: { auth: 'project' }, schema: { tags, security, summary: 'One domain', params: domainIdParams, response: { 200: domainSchema } } },
    async (request) => getDomain(deps, projectOf(request).id, request.params.id),
  );

  app.patch(
    '/domains/:id',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'Turn inbound mail on or off (verified domains only; docs/inbound.md); set the warm-up schedule of marketing mail (docs/streams.md)',
        params: domainIdParams,
        body: updateDomainBody,
        response: { 200: domainSchema },
      },
    },
    async (request) => updateDomain(deps, projectOf(request).id, request.params.id, request.body),
  );

  app.get(
    '/domains/:id/verify',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'Check the DNS records now; a lookup that times out leaves the status unchanged',
        params: domainIdParams,
        response: { 200: domainSchema },
      },
    },
    async (request) => verifyDomain(deps, projectOf(request).id, request.params.id),
  );

  app.delete(
    '/domains/:id',
    { config: { auth: 'project' }, schema: { tags, security, summary: 'Remove a domain and its key', params: domainIdParams, response: { 204: z.null() } } },
    async (request, reply) => {
      await removeDomain(deps, projectOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
