import type { Context } from 'hono';

/**
 * Serving a service under a path prefix on a shared origin (`https://api.<zone>/cms/…`) as well as
 * at the root of its own host (`https://cms.<zone>/…`).
 *
 * Each service knows its prefix: `servedUnder` wraps its fetch handler, takes the prefix off a
 * request that carries it and gives the app the request as if the service stood at the root, so no
 * route and no handler knows about prefixes. On the way out it puts the prefix back into everything
 * a browser or client follows: `Location`, cookie `Path`s, and the URLs of HTML attributes (links,
 * form actions, scripts, stylesheets, images). Pages' scripts read the prefix from
 * `<meta name="base-path">`. JSON that names URLs of the service
 * (API documents' `servers`, upload addresses) asks `basePath(c)`.
 *
 * The router forwards a prefixed request unchanged, and a Worker route `api.<zone>/cms/*` delivers
 * it the same way, so both reach the service alike.
 */

/** Set on the request the app sees when it came in under the prefix; any such header from outside is dropped. */
export const BASE_PATH_HEADER = 'x-forwarded-prefix';

type FetchHandler<E> = (request: Request, env: E, ctx: ExecutionContext) => Response | Promise<Response>;

export type ServedUnderOptions = {
  /**
   * The service's static assets are served before the Worker runs (`[assets]` without
   * `run_worker_first`): under the prefix the platform cannot find them, so the wrapper asks the
   * `ASSETS` binding first, as the platform would at the root.
   */
  assetsFirst?: boolean;
};

export function servedUnder<E>(prefix: `/${string}`, fetch: FetchHandler<E>, options: ServedUnderOptions = {}): FetchHandler<E> {
  return async (request, env, ctx) => {
    const url = new URL(request.url);
    const under = url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
    if (!under) {
      if (!request.headers.has(BASE_PATH_HEADER)) return fetch(request, env, ctx);
      const copy = new Request(request);
      copy.headers.delete(BASE_PATH_HEADER);
      return fetch(copy, env, ctx);
    }
    url.pathname = url.pathname.slice(prefix.length) || '/';
    const inner = new Request(url, request);
    inner.headers.set(BASE_PATH_HEADER, prefix);
    let response: Response | undefined;
    if (options.assetsFirst && (request.method === 'GET' || request.method === 'HEAD')) {
      const assets: unknown = env && typeof env === 'object' ? Reflect.get(env, 'ASSETS') : undefined;
      if (isFetcher(assets)) {
        const asset = await assets.fetch(inner.url, { method: request.method, headers: inner.headers });
        if (asset.status !== 404) response = asset;
        else await asset.body?.cancel();
      }
    }
    response ??= await fetch(inner, env, ctx);
    return prefixResponse(response, prefix, url.origin);
  };
}

/** The prefix the request came in under ('' at the root), for URLs the app writes into JSON. */
export function basePath(c: Context): string {
  return c.req.header(BASE_PATH_HEADER) ?? '';
}

function isFetcher(value: unknown): value is Fetcher {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'fetch') === 'function';
}

/** A root-relative path (`/x`, not `//host/x`) under the prefix. */
function prefixPath(path: string, prefix: string): string {
  if (!path.startsWith('/') || path.startsWith('//')) return path;
  if (path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`)) return path;
  return path === '/' ? `${prefix}/` : `${prefix}${path}`;
}

export function prefixLocation(location: string, prefix: string, origin: string): string {
  if (location.startsWith('/')) return prefixPath(location, prefix);
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return location;
  }
  if (url.origin !== origin) return location;
  url.pathname = prefixPath(url.pathname, prefix);
  return url.href;
}

/**
 * A cookie's `Path` under the prefix, so services sharing one origin keep their cookies apart.
 * `__Host-` cookies must keep `Path=/` (browsers refuse them otherwise); their names are the
 * service's own.
 */
export function prefixCookie(cookie: string, prefix: string): string {
  if (/^\s*__Host-/i.test(cookie)) return cookie;
  let found = false;
  const rewritten = cookie.replace(/;\s*path=([^;]*)/i, (_, path: string) => {
    found = true;
    const value = path.trim();
    return `; Path=${value === '/' || value === '' ? prefix : prefixPath(value, prefix)}`;
  });
  return found ? rewritten : `${cookie}; Path=${prefix}`;
}

/** URL-bearing attributes whose value is a root-relative path. */
const URL_ATTRIBUTE = /(\s(?:href|src|action|formaction|poster|data-url|data-href)\s*=\s*)(["']?)(\/[^"'\s>]*)/gi;

export function prefixHtml(html: string, prefix: string): string {
  // Inside start tags only: the same words in text are left as they are.
  const rewritten = html.replace(/<[a-zA-Z][^>]*>/g, (tag) =>
    tag.replace(URL_ATTRIBUTE, (_, attr: string, quote: string, path: string) => `${attr}${quote}${prefixPath(path, prefix)}`),
  );
  const meta = `<meta name="base-path" content="${prefix}">`;
  return /<head(\s[^>]*)?>/i.test(rewritten) ? rewritten.replace(/<head(\s[^>]*)?>/i, (head) => `${head}${meta}`) : rewritten;
}

async function prefixResponse(response: Response, prefix: string, origin: string): Promise<Response> {
  if (response.status === 101) return response;
  const location = response.headers.get('Location');
  // Iterating headers gives each Set-Cookie on its own (the Fetch standard's rule).
  const cookies = [...response.headers].filter(([name]) => name === 'set-cookie').map(([, value]) => value);
  const html = /^text\/html\b/i.test(response.headers.get('Content-Type') ?? '') && response.body !== null && response.status !== 304;
  if (!location && !cookies.length && !html) return response;
  const headers = new Headers(response.headers);
  if (location) headers.set('Location', prefixLocation(location, prefix, origin));
  if (cookies.length) {
    headers.delete('Set-Cookie');
    for (const cookie of cookies) headers.append('Set-Cookie', prefixCookie(cookie, prefix));
  }
  let body: BodyInit | null = response.body;
  if (html) {
    body = prefixHtml(await response.text(), prefix);
    headers.delete('Content-Length');
    headers.delete('Content-Encoding');
  }
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
