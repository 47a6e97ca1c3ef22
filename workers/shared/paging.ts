import { z } from '@hono/zod-openapi';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `page` and `pageSize` query parameters: 1-based page, bounded size; bad values are a 400 naming the field. */
export const pagingQuery = {
  page: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be 1 or more')
    .max(1_000_000, 'must be at most 1000000')
    .default(1)
    .openapi({ description: 'Page number, from 1', example: 1 }),
  pageSize: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be 1 or more')
    .max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
    .default(DEFAULT_PAGE_SIZE)
    .openapi({ description: `Items per page (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE})`, example: DEFAULT_PAGE_SIZE }),
};

export type Paging = { page: number; pageSize: number };

/** The one envelope every paged list answers with. */
export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      page: z.number().int(),
      pageSize: z.number().int(),
      totalCount: z.number().int().openapi({ description: 'Items matching the filters, over all pages' }),
      totalPages: z.number().int(),
    })
    .openapi(name);
}

export function paged<T>(items: T[], totalCount: number, { page, pageSize }: Paging) {
  return { items, page, pageSize, totalCount, totalPages: Math.ceil(totalCount / pageSize) };
}

/** SQL offset of a page. */
export const offsetOf = ({ page, pageSize }: Paging) => (page - 1) * pageSize;
