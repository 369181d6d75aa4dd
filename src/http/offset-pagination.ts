import { z } from 'zod';

/** api.md Conventions, offset pagination: the default page size, and the largest (larger is clamped). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The `page` and `pageSize` query fields every offset-paginated list shares. */
export const offsetPageFields = {
  page: z.coerce.number().int().min(1).max(1_000_000).optional(),
  pageSize: z.coerce.number().int().min(1).optional().describe(`default ${DEFAULT_PAGE_SIZE}; values above ${MAX_PAGE_SIZE} are clamped`),
};

/** The `sort` and `dir` query fields of lists sorted by name, creation or update time. */
export const sortFields = {
  sort: z.string().optional().describe('name, createdAt (default; unknown values fall back to it) or updatedAt'),
  dir: z.string().optional().describe('asc or desc (default; unknown values fall back to it)'),
};

/** api.md Conventions: an offset-paginated list's answer, `{ data, page, pageSize, total, totalPages }`. */
export const offsetPage = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    page: z.number().int(),
    pageSize: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
  });
