import { createRoute, type RouteConfig, type z } from '@hono/zod-openapi';
import { clientSecret } from '../client-secret.ts';
import { clientSecretHeader, failure, jsonBody } from '../schemas.ts';

type ClientRouteConfig<P extends string, H, B extends z.ZodType, R extends RouteConfig['responses']> = {
  path: P;
  summary: string;
  /** The request headers; X-Auth-Client-Secret alone when not given. */
  headers?: H;
  /** The JSON body's schema. */
  body: B;
  /** The answers beside the guard's 401 and the body limit's 413 (a route may say more of its 401). */
  responses: R;
};

/**
 * A JSON endpoint a consuming application calls server to server: a POST with a JSON body,
 * guarded by the shared client secret (X-Auth-Client-Secret), whose missing or wrong value
 * answers 401, and whose body is read through the service's size limit (413).
 */
export function clientRoute<
  const P extends string,
  B extends z.ZodType,
  R extends RouteConfig['responses'],
  H extends z.ZodObject = typeof clientSecretHeader,
>(config: ClientRouteConfig<P, H, B, R>) {
  return createRoute({
    method: 'post',
    path: config.path,
    summary: config.summary,
    middleware: [clientSecret] as const,
    request: { headers: config.headers ?? clientSecretHeader, body: jsonBody(config.body) },
    responses: { 401: failure('X-Auth-Client-Secret missing or wrong'), 413: failure('request body too large'), ...config.responses },
  });
}
