import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { mailboxes } from '#d1/mail/schema.ts';
import {
  BASE,
  type TestSession,
  account,
  connectMailbox,
  control,
  cookieFrom,
  directSession,
  freshCode,
  newMailbox,
  pumpWebhooks,
  send,
} from './helpers';

/**
 * The mail assistant under its path prefix on a shared origin (`/mail/…`): what a browser or client
 * follows stays under the prefix, and at the root of its own host nothing changes.
 */

const PREFIX = '/mail';
const tokenIn = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';
const setCookies = (res: Response) => res.headers.getAll('set-cookie');
const pathOf = (cookie: string) => /;\s*Path=([^;]*)/i.exec(cookie)?.[1];

/** Every URL-bearing attribute of the page's start tags whose value is root-relative. */
function rootRelativeUrls(html: string): string[] {
  const urls: string[] = [];
  for (const tag of html.match(/<[a-zA-Z][^>]*>/g) ?? []) {
    for (const [, , value] of tag.matchAll(/\s(href|src|action|formaction|poster|data-[\w-]+)\s*=\s*"(\/(?!\/)[^"]*)"/gi))
      urls.push(value!);
  }
  return urls;
}

/** The page is fit for the prefix: its base path announced, every root-relative URL under it. */
function expectUnderPrefix(html: string) {
  expect(html).toContain(`<meta name="base-path" content="${PREFIX}">`);
  const urls = rootRelativeUrls(html);
  expect(urls.length).toBeGreaterThan(0);
  for (const url of urls) expect(url, url).toMatch(/^\/mail(\/|$|\?|#)/);
}

/** Both sign-in steps through the real authentication service, under `prefix`. */
async function signInUnder(prefix: string, next: string) {
  const { email, password } = account('prefix');
  const form = await send(`${prefix}/login?next=${encodeURIComponent(next)}`);
  expect(form.status).toBe(200);
  const formHtml = await form.text();
  const step1 = await send(`${prefix}/login`, {
    method: 'POST',
    headers: { origin: BASE },
    cookie: cookieFrom(form, 'mail_login_form'),
    form: { csrf_token: tokenIn(formHtml), email, password, next },
  });
  expect(step1.status).toBe(200);
  const step1Html = await step1.text();
  const pending = cookieFrom(step1, 'mail_login_pending');
  const step2 = await send(`${prefix}/login`, {
    method: 'POST',
    headers: { origin: BASE },
    cookie: `${cookieFrom(step1, 'mail_login_form')}; ${pending}`,
    form: { csrf_token: tokenIn(step1Html), code: await freshCode('prefix'), next: /name="next" value="([^"]*)"/.exec(step1Html)![1]! },
  });
  expect(step2.status, await step2.clone().text()).toBe(302);
  return { form, formHtml, step1, step1Html, step2, session: cookieFrom(step2, 'mail_session')! };
}

describe('signed in under /mail', () => {
  it('a page without a session sends the browser to /mail/login with a next the server routes', async () => {
    const res = await send('/mail/outlook?x=1');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/mail/login?next=${encodeURIComponent('/outlook?x=1')}`);
  });

  it('sign-in keeps the prefix: form, cookies, the redirect to `next`; the client page and its script are under /mail', async () => {
    const { form, formHtml, step1, step1Html, step2, session } = await signInUnder(PREFIX, '/outlook');
    expectUnderPrefix(formHtml);
    expect(formHtml).toContain('action="/mail/login"');
    // `next` is a path as the server routes it; the redirect's rewrite adds the prefix.
    expect(formHtml).toContain('name="next" value="/outlook"');
    expectUnderPrefix(step1Html);
    for (const cookie of [...setCookies(form), ...setCookies(step1), ...setCookies(step2)]) expect(pathOf(cookie), cookie).toBe(PREFIX);
    expect(step2.headers.get('location')).toBe('/mail/outlook');

    const page = await send('/mail/outlook', { cookie: session });
    expect(page.status).toBe(200);
    const html = await page.text();
    expectUnderPrefix(html);
    // Every script and stylesheet of the page is under the prefix, linked by its content hash.
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!);
    for (const url of [...scripts, ...styles]) expect(url).toMatch(/^\/mail\/static\/mail\/[\w.-]+\.(js|css)\?v=[0-9a-f]+$/);
    const script = scripts.find((url) => url.startsWith('/mail/static/mail/outlook.js?'))!;
    expect(script).toBeDefined();
    expect(styles.some((url) => url.startsWith('/mail/static/mail/mail.css?'))).toBe(true);
    expect(html).toContain('action="/mail/logout"');

    const asset = await send(script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    await asset.body?.cancel();
    // The client reads the prefix from the page (in its helpers, the first of its scripts) for every
    // URL it fetches, navigates to or links.
    const helpers = scripts.find((url) => url.startsWith('/mail/static/mail/mail-util.js?'))!;
    expect(helpers).toBeDefined();
    expect(await (await send(helpers)).text()).toContain('meta[name="base-path"]');
    const css = await send('/mail/static/mail/mail.css');
    expect(css.status).toBe(200);
    await css.body?.cancel();

    // Signed in already: the form goes straight on to `next`, under the prefix.
    const again = await send('/mail/login?next=%2Fdashboard', { cookie: session });
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe('/mail/dashboard');

    // Logout: posted with the page's token from this origin; back to /mail/login, the cookie cleared under /mail.
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(html)![1]!;
    const out = await send('/mail/logout', { method: 'POST', headers: { origin: BASE }, cookie: session, form: { csrf_token: csrf } });
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('/mail/login');
    const cleared = setCookies(out).find((c) => c.startsWith('mail_session='))!;
    expect(cleared).toMatch(/Max-Age=0/i);
    expect(pathOf(cleared)).toBe(PREFIX);
  });

  it('a `next` the client sends back without the prefix lands under it; a foreign one falls back to /mail/outlook', async () => {
    const direct = await directSession(account('prefix').email);
    for (const [next, location] of [
      ['/inbox', '/mail/inbox'],
      ['/mail/inbox', '/mail/inbox'],
      ['//evil.example/x', '/mail/outlook'],
      ['https://evil.example/', '/mail/outlook'],
    ]) {
      const res = await send(`/mail/login?next=${encodeURIComponent(next!)}`, { cookie: direct.cookie });
      expect(res.headers.get('location'), next).toBe(location);
    }
  });
});

describe('the connect flow under /mail', () => {
  async function connectedUnderPrefix() {
    const box = await newMailbox('prefix');
    const session = await directSession(box.mail);
    return { box, session };
  }

  it('POST /mail/connect sends redirect_uri under /mail and keeps the flow cookie for the prefixed callback', async () => {
    const session = await directSession(account('prefix').email);
    const res = await send('/mail/connect', {
      method: 'POST',
      headers: { origin: BASE },
      cookie: session.cookie,
      form: { csrf_token: session.csrf },
    });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.pathname).toBe('/common/oauth2/v2.0/authorize');
    expect(location.searchParams.get('redirect_uri')).toBe(`${BASE}/mail/connect/callback`);
    expect(pathOf(setCookies(res).find((c) => c.startsWith('mail_oauth='))!)).toBe('/mail/connect/callback');
  });

  it('the whole flow: the callback under /mail matches the redirect_uri sent, the webhook is /mail/graph/webhook', async () => {
    const { box, session } = await connectedUnderPrefix();
    const res = await connectMailbox(session, box, PREFIX);
    expect(res.status, await res.clone().text()).toBe(302);
    expect(res.headers.get('location')).toBe('/mail/connect?connected=1');
    const cleared = setCookies(res).find((c) => c.startsWith('mail_oauth='))!;
    expect(pathOf(cleared)).toBe('/mail/connect/callback');
    const live = await control<{ value: { notificationUrl: string }[] }>(box, 'GET', '/subscriptions');
    // The Inbox's subscription and the Sent Items' one, both to the webhook under the prefix.
    expect(live.value.map((s) => s.notificationUrl)).toEqual([`${BASE}/mail/graph/webhook`, `${BASE}/mail/graph/webhook`]);
    const row = await drizzle(env.DB).select().from(mailboxes).where(eq(mailboxes.userId, session.userId)).get();
    expect(row?.notificationUrl).toBe(`${BASE}/mail/graph/webhook`);

    // The command line's re-subscription names the prefixed webhook too.
    const pump = pumpWebhooks(box);
    const again = await send('/mail/api/subscriptions', {
      method: 'POST',
      headers: { origin: BASE },
      cookie: session.cookie,
      csrf: session.csrf,
    }).finally(() => pump.stop());
    // Graph validated the new address through the prefix before answering.
    expect(pump.answers.map((a) => [a.url.replace(/\?.*/, ''), a.status])).toContainEqual([`${BASE}/mail/graph/webhook`, 200]);
    expect(again.status, await again.clone().text()).toBe(201);
    expect(((await again.json()) as { notificationUrl: string }).notificationUrl).toBe(`${BASE}/mail/graph/webhook`);
  });

  it('the connected mailbox’s pages keep every link under /mail; the JSON API answers under it', async () => {
    const { box, session } = await connectedUnderPrefix();
    await connectMailbox(session, box, PREFIX);
    for (const path of [
      '/mail/connect?connected=1',
      '/mail/inbox',
      '/mail/folder/inbox',
      '/mail/dashboard',
      '/mail/admin',
      '/mail/admin/docdb-latest',
      '/mail/outlook',
    ]) {
      const res = await send(path, { cookie: session.cookie });
      expect(res.status, path).toBe(200);
      expectUnderPrefix(await res.text());
    }
    const folders = await send('/mail/api/folders', { cookie: session.cookie });
    expect(folders.status).toBe(200);
    expect(((await folders.json()) as { folders: unknown[] }).folders.length).toBeGreaterThan(0);
    // The folder view links each message into the client under the prefix.
    expect(await (await send('/mail/inbox', { cookie: session.cookie })).text()).toMatch(/href="\/mail\/outlook#message=/);
  });

  it('a page that needs a mailbox sends the browser to /mail/connect', async () => {
    const session = await directSession('prefix-unconnected@example.com');
    const res = await send('/mail/inbox', { cookie: session.cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/mail/connect');
    const page = await send('/mail/connect', { cookie: session.cookie });
    expectUnderPrefix(await page.text());
  });
});

describe('other things a client reads under /mail', () => {
  it('the API document names /mail as its server; at the root, no server', async () => {
    const prefixed = (await (await send('/mail/openapi.json')).json()) as { servers: { url: string }[]; paths: Record<string, unknown> };
    expect(prefixed.servers).toEqual([{ url: '/mail' }]);
    expect(Object.keys(prefixed.paths)).toContain('/api/folders');
    const root = (await (await send('/openapi.json')).json()) as { servers?: unknown };
    expect(root).not.toHaveProperty('servers');
  });

  it('error answers name the addresses under /mail', async () => {
    const anonymous = await send('/mail/api/folders');
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { message: string }).message).toContain('/mail/login');
    const unconnected = await directSession('prefix-unconnected@example.com');
    const refused = await send('/mail/api/folders', { cookie: unconnected.cookie });
    expect(((await refused.json()) as { message: string }).message).toContain('/mail/connect');
    const missing = await send('/mail/api/nothing-here', { cookie: unconnected.cookie });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { message: string }).message).toBe('No route for GET /mail/api/nothing-here');
    const page = await send('/mail/nothing-here');
    expect(page.status).toBe(404);
    const html = await page.text();
    expect(html).toContain('There is no page at /mail/nothing-here.');
    expectUnderPrefix(html);
  });

  it('the same-origin check passes a prefixed request from this origin and refuses another site', async () => {
    const session: TestSession = await directSession('prefix-origin@example.com');
    const own = await send('/mail/connect', {
      method: 'POST',
      headers: { origin: BASE, 'sec-fetch-site': 'same-origin' },
      cookie: session.cookie,
      form: { csrf_token: session.csrf },
    });
    expect(own.status).toBe(302);
    await own.body?.cancel();
    const foreign = await send('/mail/connect', {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      cookie: session.cookie,
      form: { csrf_token: session.csrf },
    });
    expect(foreign.status).toBe(403);
    await foreign.body?.cancel();
    const form = await send('/mail/login');
    const login = await send('/mail/login', {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
      cookie: cookieFrom(form, 'mail_login_form'),
      form: { csrf_token: tokenIn(await form.text()), email: 'x@example.com', password: 'x' },
    });
    expect(login.status).toBe(403);
    await login.body?.cancel();
  });
});

describe('at the root nothing changes', () => {
  it('redirects, cookies, links and the connect flow are the root’s own', async () => {
    const redirect = await send('/outlook');
    expect(redirect.headers.get('location')).toBe('/login?next=%2Foutlook');

    const { formHtml, step1, step2, session } = await signInUnder('', '/outlook');
    expect(formHtml).not.toContain('name="base-path"');
    expect(formHtml).toContain('action="/login"');
    for (const url of rootRelativeUrls(formHtml)) expect(url).not.toMatch(/^\/mail\//);
    for (const cookie of [...setCookies(step1), ...setCookies(step2)]) expect(pathOf(cookie), cookie).toBe('/');
    expect(step2.headers.get('location')).toBe('/outlook');
    const page = await (await send('/outlook', { cookie: session })).text();
    expect(page).toMatch(/<script src="\/static\/mail\/outlook\.js\?v=/);
    expect(page).not.toContain('name="base-path"');

    const box = await newMailbox('prefix-root');
    const owner = await directSession(box.mail);
    const start = await send('/connect', { method: 'POST', cookie: owner.cookie, form: { csrf_token: owner.csrf } });
    expect(new URL(start.headers.get('location')!).searchParams.get('redirect_uri')).toBe(`${BASE}/connect/callback`);
    expect(pathOf(setCookies(start).find((c) => c.startsWith('mail_oauth='))!)).toBe('/connect/callback');
    const connected = await connectMailbox(owner, box);
    expect(connected.headers.get('location')).toBe('/connect?connected=1');
    const live = await control<{ value: { notificationUrl: string }[] }>(box, 'GET', '/subscriptions');
    expect(live.value.map((s) => s.notificationUrl)).toEqual([`${BASE}/graph/webhook`, `${BASE}/graph/webhook`]);
  });
});
