import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { createMailDns } from './verify.dns.ts';
import { verifyBody, verifyResponse } from './verify.schemas.ts';
import { verifyEmail } from './verify.service.ts';

/** the API reference (POST) /v1/verify (secret key), docs/decisions/verify.md. */
export const verifyRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  // One resolver and answer cache per server (docs/decisions/verify.md: answers cached for their TTL, bounded).
  const dns = createMailDns(deps.config.dnsServers);
  app.addHook('onClose', async () => dns.close());

  app.post(
    '/v1/verify',
    {
      config: { auth: 'secret' },
      schema: {
        tags: ['verify'],
        security: [{ apiKey: [] }],
        summary: 'Check an address: syntax, disposable, alias, personal, typo, and its domain in DNS',
        body: verifyBody,
        response: { 200: verifyResponse },
      },
    },
    async (request) => ({ success: true as const, data: await verifyEmail(dns, request.body.email) }),
  );
};
