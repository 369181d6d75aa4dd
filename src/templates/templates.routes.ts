import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { STARTERS } from './starters/index.ts';
import { getTemplateVersion, listTemplateVersions, restoreTemplateVersion } from './templates.history.ts';
import { previewContent, previewTemplate, sendTemplateTest } from './templates.preview.ts';
import {
  draftPreviewBody,
  duplicatedTemplate,
  listTemplatesQuery,
  starterList,
  templateBody,
  templateIdParams,
  templatePage,
  templatePreview,
  templatePreviewBody,
  templateSchema,
  templateTestBody,
  templateTestSent,
  templateUsage as templateUsageSchema,
  templateVersion,
  templateVersionList,
  templateVersionParams,
} from './templates.schemas.ts';
import { createTemplate, deleteTemplate, duplicateTemplate, getTemplate, listTemplates, templateUsage, updateTemplate } from './templates.service.ts';

const tags = ['templates'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];
const config = { auth: 'project' as const };

/** the API reference (Templates) (auth: secret key or session with X-Project-Id). */
export const templatesRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/templates',
    {
      config,
      schema: { tags, security, summary: 'List templates (offset pagination, type filter, search)', querystring: listTemplatesQuery, response: { 200: templatePage } },
    },
    async (request) => listTemplates(deps, projectOf(request).id, request.query),
  );

  app.post(
    '/templates',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Create a template (name, subject, body and from required; from on a verified domain)',
        body: templateBody,
        response: { 201: templateSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await createTemplate(deps, projectOf(request).id, request.body, request.user?.id)),
  );

  app.get(
    '/templates/starters',
    { config, schema: { tags, security, summary: 'Responsive MJML starters offered on "New template"', response: { 200: starterList } } },
    async () => ({ data: STARTERS.map((starter) => ({ ...starter, format: 'mjml' as const })) }),
  );

  app.get('/templates/:id', { config, schema: { tags, security, summary: 'One template', params: templateIdParams, response: { 200: templateSchema } } }, async (request) =>
    getTemplate(deps, projectOf(request).id, request.params.id),
  );

  app.patch(
    '/templates/:id',
    {
      config,
      schema: { tags, security, summary: 'Update some fields of a template', params: templateIdParams, body: templateBody, response: { 200: templateSchema } },
    },
    async (request) => updateTemplate(deps, projectOf(request).id, request.params.id, request.body, request.user?.id),
  );

  app.delete(
    '/templates/:id',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Delete a template; 409 naming them while an unsent campaign or a workflow uses it',
        params: templateIdParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      await deleteTemplate(deps, projectOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/templates/:id/duplicate',
    {
      config,
      schema: { tags, security, summary: 'Copy a template; returns the new id', params: templateIdParams, response: { 201: duplicatedTemplate } },
    },
    async (request, reply) => reply.status(201).send(await duplicateTemplate(deps, projectOf(request).id, request.params.id, request.user?.id)),
  );

  app.get(
    '/templates/:id/usage',
    {
      config,
      schema: { tags, security, summary: 'Campaigns and workflow steps that use the template', params: templateIdParams, response: { 200: templateUsageSchema } },
    },
    async (request) => templateUsage(deps, projectOf(request).id, request.params.id),
  );

  app.get(
    '/templates/:id/versions',
    {
      config,
      schema: { tags, security, summary: 'The versions kept by saves that changed the content, newest first', params: templateIdParams, response: { 200: templateVersionList } },
    },
    async (request) => listTemplateVersions(deps, projectOf(request).id, request.params.id),
  );

  app.get(
    '/templates/:id/versions/:version',
    { config, schema: { tags, security, summary: 'One version: the subject and content then', params: templateVersionParams, response: { 200: templateVersion } } },
    async (request) => getTemplateVersion(deps, projectOf(request).id, request.params.id, request.params.version),
  );

  app.post(
    '/templates/:id/versions/:version/restore',
    {
      config,
      schema: { tags, security, summary: "Save a version's content again (kept as the newest version)", params: templateVersionParams, response: { 200: templateSchema } },
    },
    async (request) => restoreTemplateVersion(deps, projectOf(request).id, request.params.id, request.params.version, request.user?.id),
  );

  const previewSummary = "Render with a contact's data as sending would; broken syntax → 400 TEMPLATE_SYNTAX_ERROR with line and column";
  app.post(
    '/templates/preview',
    { config, schema: { tags, security, summary: `${previewSummary} (an unsaved draft)`, body: draftPreviewBody, response: { 200: templatePreview } } },
    async (request) => previewContent(deps, projectOf(request).id, request.body),
  );

  app.post(
    '/templates/:id/preview',
    {
      config,
      schema: {
        tags,
        security,
        summary: `${previewSummary} (the saved template; subject or body given replace it)`,
        params: templateIdParams,
        body: templatePreviewBody,
        response: { 200: templatePreview },
      },
    },
    async (request) => previewTemplate(deps, projectOf(request).id, request.params.id, request.body),
  );

  app.post(
    '/templates/:id/test',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Send one copy, [Test] in the subject, to an address (default: the signed-in user)',
        params: templateIdParams,
        body: templateTestBody,
        response: { 200: templateTestSent },
      },
    },
    async (request) => {
      const data = await sendTemplateTest(deps, projectOf(request).id, request.params.id, request.body.email, request.user?.id, request.body.contactId);
      return { success: true as const, message: `Test email sent to ${data.to}.`, data };
    },
  );
};
