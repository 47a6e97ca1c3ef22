import type { MiddlewareHandler } from 'hono';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (a sane incoming `X-Request-Id` is kept, so one id follows a
 * request through the router and service bindings), echoes it back, and writes one JSON log line.
 */
export function requestLog(service: string): MiddlewareHandler<{ Variables: { requestId: string } }> {
  return async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set('requestId', requestId);
    const started = performance.now();
    await next();
    c.header('X-Request-Id', requestId);
    console.log(
      JSON.stringify({
        level: 'info',
        service,
        request_id: requestId,
        method: c.req.method,
        path: new URL(c.req.url).pathname,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      }),
    );
  };
}
