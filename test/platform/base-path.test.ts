import { createExecutionContext } from 'cloudflare:test';
import { Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import { describe, expect, it } from 'vitest';
import { BASE_PATH_HEADER, basePath, prefixCookie, prefixHtml, prefixLocation, servedUnder } from '#shared/base-path.ts';

const PAGE = `<!doctype html><html><head><title>t</title><link rel="stylesheet" href="/static/app.css"></head>
<body><a href="/runner/1/?tab=detailed">runner</a> <a href='//cdn.example/x'>other host</a> <a href="https://x.example/a">abs</a>
<a href="?page=2">next</a> <form method="post" action="/logout"><button formaction="/login">in</button></form>
<img src="/img/a.png"><script src="/static/app.js"></script><p>text with href="/not-an-attribute"</p></body></html>`;

function testService() {
  const app = new Hono();
  app.get('/', (c) => c.html(PAGE));
  app.get('/go', (c) => c.redirect('/login?next=%2Frunner%2F1'));
  app.get('/go-absolute', (c) => c.redirect(new URL('/home', c.req.url).href));
  app.get('/go-elsewhere', (c) => c.redirect('https://login.example/authorize'));
  app.get('/seen', (c) => c.json({ path: c.req.path, url: c.req.url, base: basePath(c) }));
  app.post('/echo', async (c) => c.json({ body: await c.req.text() }));
  app.get('/cookies', (c) => {
    setCookie(c, 'session', 'a', { path: '/api' });
    setCookie(c, 'theme', 'dark', { path: '/' });
    setCookie(c, '__Host-dash', 'b', { path: '/', secure: true });
    return c.text('ok');
  });
  const assets = {
    fetch: async (input: RequestInfo | URL) =>
      new URL(String(input)).pathname === '/static/app.css'
        ? new Response('body{}', { headers: { 'content-type': 'text/css' } })
        : new Response('no', { status: 404 }),
  };
  const fetch = servedUnder('/svc', (request: Request, env: { ASSETS?: unknown }, ctx: ExecutionContext) => app.fetch(request, env, ctx), {
    assetsFirst: true,
  });
  return (url: string, init?: RequestInit) => fetch(new Request(url, init), { ASSETS: assets }, createExecutionContext());
}

describe('serving a service under a path prefix', () => {
  const call = testService();

  it('hands the app the request without the prefix, and with it says which prefix it came under', async () => {
    const res = await call('https://api.example/svc/seen?x=1');
    expect(await res.json()).toEqual({ path: '/seen', url: 'https://api.example/seen?x=1', base: '/svc' });
    const bare = await call('https://api.example/svc');
    expect(bare.status).toBe(200);
    expect(await bare.text()).toContain('runner');
  });

  it('leaves a request at the root alone, and drops a prefix header sent from outside', async () => {
    const res = await call('https://svc.example/seen', { headers: { [BASE_PATH_HEADER]: '/evil' } });
    expect(await res.json()).toEqual({ path: '/seen', url: 'https://svc.example/seen', base: '' });
    const page = await call('https://svc.example/');
    expect(await page.text()).toBe(PAGE);
  });

  it('takes the prefix only as a whole path segment', async () => {
    const res = await call('https://api.example/svcx/seen');
    expect(res.status).toBe(404);
  });

  it('keeps a request body', async () => {
    const res = await call('https://api.example/svc/echo', { method: 'POST', body: 'hello' });
    expect(await res.json()).toEqual({ body: 'hello' });
  });

  it('puts the prefix into redirects, own-origin absolute ones included, and no other host', async () => {
    expect((await call('https://api.example/svc/go', { redirect: 'manual' })).headers.get('location')).toBe(
      '/svc/login?next=%2Frunner%2F1',
    );
    expect((await call('https://api.example/svc/go-absolute')).headers.get('location')).toBe('https://api.example/svc/home');
    expect((await call('https://api.example/svc/go-elsewhere')).headers.get('location')).toBe('https://login.example/authorize');
    expect((await call('https://svc.example/go')).headers.get('location')).toBe('/login?next=%2Frunner%2F1');
  });

  it('puts the prefix into cookie paths, leaving __Host- cookies at / as browsers require', async () => {
    const res = await call('https://api.example/svc/cookies');
    const cookies = [...res.headers].filter(([name]) => name === 'set-cookie').map(([, value]) => value);
    expect(cookies).toEqual(['session=a; Path=/svc/api', 'theme=dark; Path=/svc', '__Host-dash=b; Path=/; Secure']);
  });

  it('puts the prefix into the URL attributes of a page and names it in a meta tag, text and other hosts untouched', async () => {
    const html = await (await call('https://api.example/svc/')).text();
    expect(html).toContain('<head><meta name="base-path" content="/svc"><title>');
    expect(html).toContain('href="/svc/static/app.css"');
    expect(html).toContain('href="/svc/runner/1/?tab=detailed"');
    expect(html).toContain("href='//cdn.example/x'");
    expect(html).toContain('href="https://x.example/a"');
    expect(html).toContain('href="?page=2"');
    expect(html).toContain('action="/svc/logout"');
    expect(html).toContain('formaction="/svc/login"');
    expect(html).toContain('src="/svc/img/a.png"');
    expect(html).toContain('src="/svc/static/app.js"');
    expect(html).toContain('text with href="/not-an-attribute"');
  });

  it('serves static assets under the prefix before the app, and the app for what is not an asset', async () => {
    const css = await call('https://api.example/svc/static/app.css');
    expect(await css.text()).toBe('body{}');
    const missing = await call('https://api.example/svc/static/none.css');
    expect(missing.status).toBe(404);
  });

  it('rewrites paths only once', () => {
    expect(prefixLocation('/svc/x', '/svc', 'https://a')).toBe('/svc/x');
    expect(prefixLocation('/', '/svc', 'https://a')).toBe('/svc/');
    expect(prefixCookie('a=b; Path=/svc/api', '/svc')).toBe('a=b; Path=/svc/api');
    expect(prefixCookie('a=b', '/svc')).toBe('a=b; Path=/svc');
    expect(prefixHtml('<a href="/svc/x">', '/svc')).toBe('<a href="/svc/x">');
  });
});
