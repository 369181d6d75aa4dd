import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { AppError, badRequest } from '../errors.ts';
import { projectOf } from '../http/auth.ts';
import { jobAccepted, jobParams, jobStatusResponse } from './contact-bulk.schemas.ts';
import { getJob } from './contact-bulk.service.ts';
import { MAX_IMPORT_BYTES, queueImport } from './contact-import.service.ts';

const tags = ['contacts'];
const security: Record<string, string[]>[] = [{ apiKey: [] }, { session: [] }];

/** CSV import (the API reference (Contacts); docs/decisions/contacts-and-events.md). Multipart parsing is registered for this plugin only. */
export const contactImportRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  // A file over the limit is a 413 in the envelope (FST_REQ_FILE_TOO_LARGE from toBuffer(), or below).
  await app.register(multipart, { limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 10, parts: 20 } });

  app.post(
    '/contacts/import',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'Import contacts from a CSV (multipart field `file`, at most 5 MB); queued',
        consumes: ['multipart/form-data'],
        response: { 202: jobAccepted },
      },
    },
    async (request, reply) => {
      const missing = 'Upload the CSV as multipart/form-data in the field `file`.';
      if (!request.isMultipart()) throw badRequest(missing);
      const file = await request.file();
      if (!file) throw badRequest(missing);
      if (file.fieldname !== 'file') throw badRequest(`${missing} Got the field \`${file.fieldname}\`.`);
      const content = await file.toBuffer();
      // toBuffer() can miss a limit hit on the last chunk; busboy's flag cannot.
      if (file.file.truncated) throw new AppError('PAYLOAD_TOO_LARGE', { message: `The CSV is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB.` });
      return reply.status(202).send(await queueImport(deps, projectOf(request).id, content));
    },
  );

  app.get(
    '/contacts/import/:jobId',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Progress of an import job', params: jobParams, response: { 200: jobStatusResponse } },
    },
    async (request) => getJob(deps, projectOf(request).id, request.params.jobId, ['import'], 'Import job'),
  );
};
