// Workers static assets (`[assets] directory`) served from the directory: `env.ASSETS.fetch()`
// (the binding) and, for a Worker without `run_worker_first`, the match tried before the Worker
// runs. As Cloudflare serves them: `Content-Type` by extension, a strong ETag and 304 on
// `If-None-Match`, `Cache-Control: public, max-age=0, must-revalidate` unless `_headers` sets one,
// HTML handling "auto-trailing-slash" (`/a` → `a.html` or `a/index.html`), `_headers` rules
// (`*` splats and `:placeholders`, `! Name` to detach), and `_headers`/`_redirects` never served.
import { join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  map: 'application/json',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  ico: 'image/x-icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  wasm: 'application/wasm',
  xml: 'application/xml',
  pdf: 'application/pdf',
};
const HIDDEN = new Set(['/_headers', '/_redirects', '/.assetsignore']);

export function contentType(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return TYPES[ext] ?? 'application/octet-stream';
}

interface HeaderRule {
  pattern: RegExp;
  set: [string, string][];
  detach: string[];
}

/** `_headers` rules: a URL pattern on its own line, then indented `Name: value` (or `! Name`) lines. */
export function parseHeadersFile(text: string): HeaderRule[] {
  const rules: HeaderRule[] = [];
  let current: HeaderRule | undefined;
  for (const raw of text.split(/\r?\n/)) {
    if (!raw.trim() || raw.trim().startsWith('#')) continue;
    if (!/^\s/.test(raw)) {
      const source = raw.trim().replace(/^https?:\/\/[^/]+/, '');
      const regex = source
        .split(/(\*|:[A-Za-z]\w*)/)
        .map((part) => (part === '*' ? '(.*)' : part.startsWith(':') ? '([^/]+)' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      current = { pattern: new RegExp(`^${regex}$`), set: [], detach: [] };
      rules.push(current);
      continue;
    }
    if (!current) continue;
    const line = raw.trim();
    if (line.startsWith('!')) current.detach.push(line.slice(1).trim());
    else if (line.includes(':')) current.set.push([line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()]);
  }
  return rules;
}

export class StaticAssets {
  readonly #root: string;
  #rules: HeaderRule[] | undefined;

  constructor(directory: string) {
    this.#root = normalize(directory);
  }

  /** The `ASSETS` binding: the asset, or 404. */
  async fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    return (
      (await this.match(request)) ?? new Response('Not Found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } })
    );
  }

  /** The asset a GET or HEAD request names, or null (then the Worker answers). */
  async match(request: Request): Promise<Response | null> {
    if (request.method !== 'GET' && request.method !== 'HEAD') return null;
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(request.url).pathname);
    } catch {
      return null;
    }
    if (HIDDEN.has(pathname) || pathname.includes('\0')) return null;
    const found = await this.#find(pathname);
    if (!found) return null;
    const { file, info } = found;
    const etag = `"${info.size.toString(16)}-${(info.mtime?.getTime() ?? 0).toString(16)}"`;
    const headers = new Headers({ 'content-type': contentType(file), etag, 'cache-control': 'public, max-age=0, must-revalidate' });
    for (const rule of await this.#headerRules()) {
      if (!rule.pattern.test(pathname)) continue;
      for (const name of rule.detach) headers.delete(name);
      for (const [name, value] of rule.set) headers.set(name, value);
    }
    const ifNoneMatch = request.headers.get('if-none-match');
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
      return new Response(null, { status: 304, headers });
    }
    headers.set('content-length', String(info.size));
    if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
    const handle = await Deno.open(file, { read: true });
    return new Response(handle.readable, { status: 200, headers });
  }

  async #find(pathname: string): Promise<{ file: string; info: Deno.FileInfo } | null> {
    const candidates = pathname.endsWith('/') ? [`${pathname}index.html`] : [pathname, `${pathname}.html`, `${pathname}/index.html`];
    for (const candidate of candidates) {
      const file = normalize(join(this.#root, candidate));
      if (file !== this.#root && !file.startsWith(this.#root + sep)) continue;
      try {
        const info = await Deno.stat(file);
        if (info.isFile) return { file, info };
      } catch {
        // not there: try the next form
      }
    }
    return null;
  }

  async #headerRules(): Promise<HeaderRule[]> {
    if (!this.#rules) {
      try {
        this.#rules = parseHeadersFile(await Deno.readTextFile(join(this.#root, '_headers')));
      } catch {
        this.#rules = [];
      }
    }
    return this.#rules;
  }
}
