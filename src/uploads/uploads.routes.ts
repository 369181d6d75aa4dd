import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { AppError, badRequest } from '../errors.ts';
import { projectOf } from '../http/auth.ts';
import { uploadedImage, uploadFileParams } from './uploads.schemas.ts';
import { MAX_IMAGE_BYTES, readImage, saveImage } from './uploads.service.ts';

const tags = ['uploads'];
const security: Record<string, string[]>[] = [{ apiKey: [] }, { session: [] }];

/** the API reference "POST /uploads/image" (multipart field `file`, docs/decisions/contacts-and-events.md) and the public GET it links to. */
export const uploadsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  await app.register(multipart, { limits: { fileSize: MAX_IMAGE_BYTES, files: 1, fields: 10, parts: 20 } });

  app.post(
    '/uploads/image',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'Upload an image (PNG, JPEG, GIF or WebP by content; at most 5 MB) and get its public URL',
        consumes: ['multipart/form-data'],
        response: { 201: uploadedImage },
      },
    },
    async (request, reply) => {
      const missing = 'Upload the image as multipart/form-data in the field `file`.';
      if (!request.isMultipart()) throw badRequest(missing);
      const file = await request.file();
      if (!file) throw badRequest(missing);
      if (file.fieldname !== 'file') throw badRequest(`${missing} Got the field \`${file.fieldname}\`.`);
      const content = await file.toBuffer();
      // toBuffer() can miss a limit hit on the last chunk; busboy's flag cannot.
      if (file.file.truncated) throw new AppError('PAYLOAD_TOO_LARGE', { message: `The image is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB.` });
      if (content.length === 0) throw badRequest('The file is empty.');
      return reply.status(201).send(await saveImage(deps, projectOf(request).id, content));
    },
  );

  app.get('/uploads/:file', { config: { auth: 'none' }, schema: { tags, summary: 'An uploaded image (public)', params: uploadFileParams } }, async (request, reply) => {
    const image = await readImage(deps, request.params.file);
    // The id never names other bytes, so caches may keep it for good. nosniff and the CSP keep a
    // browser from treating the bytes as anything but the image type we detected.
    return reply
      .header('content-type', image.contentType)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cross-origin-resource-policy', 'cross-origin')
      .send(image.content);
  });
};
