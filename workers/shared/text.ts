import { z } from 'zod';

// PostgreSQL text (and jsonb) cannot hold NUL (U+0000): a query given one fails. No service has a
// use for it either, so every text input is refused at validation when it holds one, in the
// service's own validation error body, rather than reaching a database as a 500.

export const NUL_MESSAGE = 'must not contain NUL characters';

/** Whether the text holds a NUL character. */
export const hasNul = (text: string) => text.includes('\u0000');

/** The one text input schema: a zod string that refuses NUL; chain `.trim()`, `.max()` etc. on it. */
export const text = (params?: Parameters<typeof z.string>[0]) => z.string(params).refine((value) => !hasNul(value), NUL_MESSAGE);
