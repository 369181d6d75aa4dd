import type { Deps } from '../deps.ts';
import { AppError, notFound } from '../errors.ts';
import { detectImage, looksLikeSvg } from './uploads.image.ts';
import { findUploadContent, insertUpload } from './uploads.queries.ts';

/** Images up to 5 MB (the limit the CSV import has; the API reference gives none for images). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The public address of an upload: under PUBLIC_URL, so links in sent mail reach this server. */
export function uploadUrl(publicUrl: string, id: string, ext: string) {
  return `${publicUrl}/uploads/${id}.${ext}`;
}

/** POST /uploads/image: the content decides the type; anything but PNG, JPEG, GIF or WebP is a 415. */
export async function saveImage(deps: Pick<Deps, 'db' | 'config'>, projectId: string, content: Buffer) {
  const kind = detectImage(content);
  if (!kind) {
    const svg = looksLikeSvg(content);
    throw new AppError('UNSUPPORTED_IMAGE_TYPE', {
      message: svg ? 'SVG images are not accepted: they can carry script.' : 'The file is not a PNG, JPEG, GIF or WebP image.',
      suggestion: svg ? 'Convert the image to PNG.' : 'Upload a PNG, JPEG, GIF or WebP file; the type is read from the content, not the file name.',
    });
  }
  const row = await insertUpload(deps.db, projectId, { ext: kind.ext, contentType: kind.contentType, content });
  if (!row) throw new AppError('INTERNAL_SERVER_ERROR');
  return { id: row.id, url: uploadUrl(deps.config.publicUrl, row.id, row.ext), contentType: row.content_type, size: row.size };
}

/** GET /uploads/<id>.<ext>: anything that does not name a stored upload exactly is a 404. */
export async function readImage(deps: Pick<Deps, 'db'>, file: string) {
  const match = /^([^.]+)\.([a-z]+)$/.exec(file);
  if (!match || !UUID.test(match[1]!)) throw notFound('Upload');
  const found = await findUploadContent(deps.db, match[1]!.toLowerCase(), match[2]!);
  if (!found) throw notFound('Upload');
  return found;
}
