import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context, Env, ErrorHandler, NotFoundHandler } from 'hono';
import type { ZodError } from 'zod';
import { basePath } from './base-path.ts';
import { drainUnreadBody } from './body.ts';
import { errorBody, notFound, onError } from './errors.ts';
import { anonymous } from './guard.ts';
import { requestLog } from './request-log.ts';

/** Input that failed its route's zod schema: which part of the request (`json`, `query`, `param`, …) and why. */
export type InvalidInput = { target: string; error: ZodError };

/**
 * What a service's spec fixes about its answers: the body of a request whose input fails its schema,
 * of an error, and of a path with no route. Each defaults to the platform's JSON
 * `{error, message, request_id}`.
 */
export type AppOptions<E extends Env> = {
  invalid?: (input: InvalidInput, c: Context<E>) => Response | Promise<Response>;
  onError?: ErrorHandler<E>;
  notFound?: NotFoundHandler<E>;
  /**
   * The schema of the service's error body, for the answers the platform gives on every route
   * whatever the route declares: 415 for a body of a media type the route does not take. Defaults
   * to the platform's `{error, message, request_id}`.
   */
  errorSchema?: z.ZodType;
  /**
   * Answers the service itself gives on every route before routing (e.g. `414` for a long
   * address), documented for every route (of `methods`, default all) with their `content`
   * (default: JSON in `errorSchema`).
   */
  everyRoute?: Record<number, EveryRouteAnswer>;
};

export type EveryRouteAnswer = { description: string; methods?: string[]; content?: Record<string, { schema: z.ZodType }> };

const platformError = z.object({ error: z.string(), message: z.string(), request_id: z.string().optional() }).passthrough();

type Registry = OpenAPIHono['openAPIRegistry'];

/**
 * Adds to every route that takes a body the 415 its validator answers for another media type
 * (@hono/zod-openapi raises it before the handler runs), unless the route documents one itself.
 */
export function documentPlatformAnswers(
  registry: Registry,
  errorSchema: z.ZodType,
  everyRoute: Record<number, EveryRouteAnswer> = {},
): void {
  for (const definition of registry.definitions) {
    if (definition.type !== 'route') continue;
    for (const [status, { description, methods, content }] of Object.entries(everyRoute)) {
      if (methods && !methods.includes(definition.route.method.toUpperCase())) continue;
      definition.route.responses[status] ??= { description, content: content ?? { 'application/json': { schema: errorSchema } } };
    }
    if (!definition.route.request?.body || definition.route.responses[415]) continue;
    const types = Object.keys(definition.route.request.body.content).join(' or ');
    definition.route.responses[415] = {
      description: `The body is not ${types}`,
      content: { 'application/json': { schema: errorSchema } },
    };
  }
}

/** The platform's answer to invalid input: 400 with the offending fields. */
function invalidRequest<E extends Env>(input: InvalidInput, c: Context<E>) {
  const issues = input.error.issues.map((issue) => ({
    field: [input.target, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  return c.json(errorBody(c, 'invalid_request', `Invalid ${issues.map((i) => i.field).join(', ')}`, { issues }), 400);
}

/**
 * The base every service builds on: an unread request body drained before answering, request id +
 * one log line per request, and the service's answers to invalid input, errors and unknown paths
 * (`options`). Routers mounted on the app inherit its invalid-input answer.
 */
export function createApp<E extends Env>(service: string, options: AppOptions<E & { Variables: { requestId: string } }> = {}) {
  const invalid = options.invalid ?? invalidRequest<E & { Variables: { requestId: string } }>;
  const app = new OpenAPIHono<E & { Variables: { requestId: string } }>({
    defaultHook: (result, c) => {
      if (result.success) return;
      return invalid({ target: result.target, error: result.error }, c);
    },
  });
  app.use(drainUnreadBody());
  app.use(requestLog(service));
  app.onError(options.onError ?? onError);
  app.notFound(options.notFound ?? notFound);
  // The generated document names the platform's answers too (sub-routers' routes are in the
  // registry by then).
  const errorSchema = options.errorSchema ?? platformError;
  const document31 = app.getOpenAPI31Document;
  app.getOpenAPI31Document = (...args) => {
    documentPlatformAnswers(app.openAPIRegistry, errorSchema, options.everyRoute);
    return document31(...args);
  };
  const document30 = app.getOpenAPIDocument;
  app.getOpenAPIDocument = (...args) => {
    documentPlatformAnswers(app.openAPIRegistry, errorSchema, options.everyRoute);
    return document30(...args);
  };
  return app;
}

/** What a service says of itself at the top of its API document. */
export type ApiInfo = { title: string; version: string; description: string };

/**
 * The service's generated API document at `/openapi.json`: open to anyone, as its route says.
 * Served under a path prefix, the document's server is that prefix (as FastAPI's `root_path`
 * does), so "try it" requests stay under it; at the root it names no server. `info` may name
 * addresses under the prefix through `basePath(c)`.
 */
export function serveApiDocument<E extends Env>(app: OpenAPIHono<E>, info: (c: Context<E>) => ApiInfo) {
  app.get('/openapi.json', anonymous);
  app.doc31('/openapi.json', (c) => ({
    openapi: '3.1.0',
    info: info(c),
    ...(basePath(c) ? { servers: [{ url: basePath(c) }] } : {}),
  }));
}
