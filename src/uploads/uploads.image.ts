/**
 * Which images POST /uploads/image accepts, decided by the bytes alone (never the file name or the
 * declared Content-Type, which the client controls). SVG is refused: it is XML that can carry
 * script, and it would be served from our origin.
 */
export type ImageKind = { ext: 'png' | 'jpg' | 'gif' | 'webp'; contentType: string };

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The image type of `bytes` by its magic number, or undefined when it is none we serve. */
export function detectImage(bytes: Buffer): ImageKind | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return { ext: 'png', contentType: 'image/png' };
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return { ext: 'jpg', contentType: 'image/jpeg' };
  const head = bytes.subarray(0, 12).toString('latin1');
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return { ext: 'gif', contentType: 'image/gif' };
  if (bytes.length >= 12 && head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return { ext: 'webp', contentType: 'image/webp' };
  return undefined;
}

/** True when the bytes look like SVG (or other XML), so the refusal can say why. */
export function looksLikeSvg(bytes: Buffer): boolean {
  const head = bytes
    .subarray(0, 1024)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  return head.startsWith('<?xml') || head.startsWith('<svg') || (head.startsWith('<!') && head.includes('<svg'));
}

export const CONTENT_TYPES: Record<ImageKind['ext'], string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};
