import { z } from 'zod';

export const uploadedImage = z.object({
  id: z.uuid(),
  /** Public, unauthenticated address under PUBLIC_URL, for template bodies. */
  url: z.string(),
  contentType: z.string(),
  size: z.number().int(),
});

export const uploadFileParams = z.object({ file: z.string() });
