import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { userOf } from '../http/auth.ts';
import { projectIdParams } from '../projects/projects.schemas.ts';
import { consumptionResponse, invoicesResponse, limitsBody, limitsResponse } from './billing.schemas.ts';
import { getConsumption, getLimits, listInvoices, noPaymentProvider, putLimits } from './billing.service.ts';

const tags = ['billing'];
const security = [{ session: [] }];
const params = projectIdParams;

/** the API reference billing endpoints under /users/@me/projects/{id} (session; roles checked in the service). */
export const billingRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/users/@me/projects/:id/billing-limits',
    { config: { auth: 'session' }, schema: { tags, security, summary: 'Monthly caps per category (null: unlimited)', params, response: { 200: limitsResponse } } },
    async (request) => getLimits(deps, request.params.id, userOf(request).id),
  );

  app.put(
    '/users/@me/projects/:id/billing-limits',
    {
      config: { auth: 'session' },
      schema: { tags, security, summary: 'Set monthly caps (OWNER or ADMIN)', params, body: limitsBody, response: { 200: limitsResponse } },
    },
    async (request) => putLimits(deps, request.params.id, userOf(request).id, request.body),
  );

  app.get(
    '/users/@me/projects/:id/billing-consumption',
    { config: { auth: 'session' }, schema: { tags, security, summary: "This month's usage per category", params, response: { 200: consumptionResponse } } },
    async (request) => getConsumption(deps, request.params.id, userOf(request).id),
  );

  app.get(
    '/users/@me/projects/:id/billing-invoices',
    { config: { auth: 'session' }, schema: { tags, security, summary: 'Invoices (none without a payment provider)', params, response: { 200: invoicesResponse } } },
    async (request) => listInvoices(deps, request.params.id, userOf(request).id),
  );

  app.post(
    '/users/@me/projects/:id/checkout',
    { config: { auth: 'session' }, schema: { tags, security, summary: 'Payment-provider checkout (501 without a provider)', params } },
    async (request) => noPaymentProvider(deps, request.params.id, userOf(request).id, 'checkout'),
  );

  app.post(
    '/users/@me/projects/:id/billing-portal',
    { config: { auth: 'session' }, schema: { tags, security, summary: 'Payment-provider billing portal (501 without a provider)', params } },
    async (request) => noPaymentProvider(deps, request.params.id, userOf(request).id, 'billing portal'),
  );
};
