import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorBody } from '#shared/errors.ts';
import type { MigrateContext } from '../context.ts';
import { ErrorPage } from './layout.tsx';

const TITLES: Partial<Record<number, string>> = {
  400: 'Request not accepted',
  403: 'Not allowed',
  404: 'Not found',
  413: 'Too large',
  415: 'Unsupported form',
  429: 'Too many requests',
  502: 'A service did not answer',
  503: 'Database unavailable',
};

/** An error answer in the route's kind: JSON for JSON routes, a page otherwise. */
export function errorAnswer(
  c: MigrateContext,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  details?: Record<string, unknown>,
) {
  if (c.var.answerJson || new URL(c.req.url).pathname.startsWith('/api/')) return c.json(errorBody(c, code, message, details), status);
  const title = TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'Request not accepted');
  return c.html(<ErrorPage title={title} message={message} csrf={c.var.csrfToken ?? ''} user={c.var.user} />, status);
}

export const notFoundPage = (c: MigrateContext, message: string) => errorAnswer(c, 404, 'not_found', message);
