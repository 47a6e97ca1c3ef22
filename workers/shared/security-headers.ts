import type { Context, MiddlewareHandler } from 'hono';
import { HttpError } from './http-error.ts';
import { isLoopbackHost } from './local-development.ts';

/** The strictest page policy: everything from the service's own origin, no inline script or style. */
export const STRICT_PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

/** For pages that keep an inline `<style>` (or libraries that set style attributes); scripts stay own-origin only. */
export const INLINE_STYLE_PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

// Only on https answers: a browser ignores HSTS received over http (RFC 6797, 8.1), and on a
// loopback name (local development, tests) it would pin every local port to https.
const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * The security headers of every response of a service: `nosniff`, no framing (`X-Frame-Options:
 * DENY` and the policy's `frame-ancestors 'none'`), `Referrer-Policy`, the page policy `csp`
 * (unless the route set its own, as API viewers with their own needs do), and HSTS on https
 * outside local development. `noStore`: `Cache-Control: no-store` on everything unless the route
 * set a Cache-Control (for services whose every answer may carry a credential).
 */
export function securityHeaders(options: { csp: string | ((c: Context) => string); noStore?: boolean }): MiddlewareHandler {
  return async (c, next) => {
    await next();
    let headers = c.res.headers;
    try {
      headers.set('X-Content-Type-Options', 'nosniff');
    } catch {
      // A response straight from fetch (static assets) has immutable headers: answer a copy.
      c.res = new Response(c.res.body, c.res);
      headers = c.res.headers;
    }
    headers.set('X-Content-Type-Options', 'nosniff');
    headers.set('X-Frame-Options', 'DENY');
    if (!headers.has('Referrer-Policy')) headers.set('Referrer-Policy', 'same-origin');
    if (!headers.has('Content-Security-Policy'))
      headers.set('Content-Security-Policy', typeof options.csp === 'string' ? options.csp : options.csp(c));
    if (options.noStore && !headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store');
    const url = new URL(c.req.url);
    // Not on loopback names (local development, tests): HSTS there would pin the browser to https.
    if (url.protocol === 'https:' && !isLoopbackHost(url.hostname)) headers.set('Strict-Transport-Security', HSTS);
  };
}

/** The longest address a service reads; past it, 414 `uri_too_long` (drawn by the service's error renderer). */
export const MAX_URL_LENGTH = 4096;

/** The one 414 check: an address longer than `maxLength` characters is refused before routing. */
export function limitUrlLength(maxLength = MAX_URL_LENGTH): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.url.length > maxLength) throw new HttpError(414, 'uri_too_long', `The address is longer than ${maxLength} characters.`);
    await next();
  };
}
