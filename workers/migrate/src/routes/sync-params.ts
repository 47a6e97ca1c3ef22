import { z } from '@hono/zod-openapi';
import type { MigrateContext } from '../context.ts';
import { identifier, parsed } from '../input.ts';

// The sync routes' path and query parameters (pages, JSON routes, incremental settings).

/** An integer id as a path or query text: digits only (no signs, spaces, exponents or hex). */
export const idText = z
  .string()
  .regex(/^\d{1,10}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(z.number().int().positive('must be a positive integer').max(2_147_483_647));
export const pathId = (c: MigrateContext) => parsed(idText, c.req.param('id'), 'path.id');
export const IdParam = z.object({ id: idText.openapi({ param: { name: 'id', in: 'path' }, type: 'string', example: '1' }) });
export const ConfigQuery = z.object({ configId: idText.openapi({ type: 'string', example: '1' }) });
export const TableQuery = ConfigQuery.extend({ table: identifier });
