import { describe, expect, it } from 'vitest';
import { createMailApp } from '../../workers/mail/src/app';
import { apiMailbox, apiSession, assistant, assistantAdmin, csrf, pageMailbox, pageSession } from '../../workers/mail/src/guards';
import { AI_GATES, type AiGate } from './ai-gates';
import { directSession, send } from './helpers';
import { accessTable, routeGuards, unprotectedBrowserWrites } from '../support/route-guards';
import { type Gate, TOOLS_GATES } from './tools-gates';

/**
 * Every registered route carries the guards of its gate in its own definition. A new route
 * fails here until it is given a gate below.
 */
const GATES: Record<string, Gate | AiGate> = {
  'GET /': 'none',
  'GET /login': 'none',
  'POST /': 'none',
  'POST /login': 'none',
  'GET /api/auth-status': 'none',
  'GET /graph/webhook': 'none',
  'POST /graph/webhook': 'none',
  'GET /openapi.json': 'none',
  'GET /logout': 'page-login',
  'POST /logout': 'page-login-csrf',
  'GET /connect': 'page-login',
  'POST /connect': 'page-login-csrf',
  'GET /connect/callback': 'page-login',
  'POST /disconnect': 'page-login-csrf',
  'GET /outlook': 'page-login',
  'GET /inbox': 'page-token',
  'GET /folder/:name': 'page-token',
  'GET /api/folders': 'api-token',
  'GET /api/emails/:folder_name': 'api-token',
  'GET /api/email/:message_id': 'api-token',
  'GET /api/thread/:message_id': 'api-token',
  'GET /api/email/:message_id/html': 'api-token',
  'GET /api/email-download/:message_id': 'api-token',
  'GET /api/conversation-counts': 'api-token',
  'GET /api/people': 'api-token',
  'POST /api/mark-read/:message_id': 'api-token-csrf',
  'POST /api/move/:message_id': 'api-token-csrf',
  'POST /api/messages/:message_id/delete': 'api-token-csrf',
  'POST /api/messages/:message_id/archive': 'api-token-csrf',
  'POST /api/compose/send': 'api-token-csrf',
  'POST /api/reply/:message_id': 'api-token-csrf',
  ...TOOLS_GATES,
  ...AI_GATES,
};

const REQUIRED: Record<Gate | AiGate, unknown[]> = {
  none: [],
  'page-login': [pageSession],
  'page-login-csrf': [pageSession, csrf],
  'page-token': [pageSession, pageMailbox],
  'api-token': [apiSession, apiMailbox],
  'api-token-csrf': [apiSession, csrf, apiMailbox],
  'page-ai': [pageSession, assistant],
  'page-ai-csrf': [pageSession, csrf, assistant],
  'page-ai-admin-csrf': [pageSession, csrf, assistantAdmin],
  'page-ai-token': [pageSession, assistant, pageMailbox],
  'page-ai-token-csrf': [pageSession, csrf, assistant, pageMailbox],
  'api-ai': [apiSession, assistant],
  'api-ai-csrf': [apiSession, csrf, assistant],
  'api-ai-token': [apiSession, assistant, apiMailbox],
  'api-ai-token-csrf': [apiSession, csrf, assistant, apiMailbox],
  'api-ai-admin': [apiSession, assistantAdmin],
  'api-ai-admin-csrf': [apiSession, csrf, assistantAdmin],
};
const ALL_GUARDS = [pageSession, apiSession, csrf, pageMailbox, apiMailbox, assistant, assistantAdmin];

describe('route guards', () => {
  const app = createMailApp();
  // The shared walker: every route has exactly one access guard (anonymous or a session).
  const routes = routeGuards(app);

  it('every registered route has a gate here, and every gate here a route', () => {
    expect(routes.map((r) => r.key).sort()).toEqual(Object.keys(GATES).sort());
  });

  it('names anonymous access exactly on the gate-less routes, a session on the others', () => {
    expect(accessTable(routes)).toEqual(
      Object.fromEntries(Object.entries(GATES).map(([key, gate]) => [key, gate === 'none' ? 'anonymous' : 'session'])),
    );
  });

  it.each(routes.map((r) => r.key))('%s carries exactly the guards of its gate, in order', (key) => {
    const [method, path] = key.split(' ');
    const handlers = app.routes.filter((r) => r.method === method && r.path === path).map((r) => r.handler);
    const guards = handlers.filter((h) => ALL_GUARDS.includes(h));
    expect(guards).toEqual(REQUIRED[GATES[key]!]);
  });

  it('every state-changing route of a session has anti-forgery', () => {
    expect(unprotectedBrowserWrites(routes)).toEqual([]);
    // Outside the session: only the sign-in form and Graph's webhook change anything.
    expect(
      routes
        .filter((r) => r.method !== 'GET' && !r.browserSession)
        .map((r) => r.key)
        .sort(),
    ).toEqual(['POST /', 'POST /graph/webhook', 'POST /login']);
  });
});

describe('gates answer as declared', () => {
  it('pages without a session go to the login form (and come back after it)', async () => {
    for (const path of ['/outlook', '/admin', '/dashboard', '/trace/abc', '/inbox', '/folder/inbox', '/connect', '/logout']) {
      const res = await send(path);
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
  });

  it('JSON routes without a session are 401 JSON', async () => {
    for (const path of ['/api/folders', '/api/emails/inbox', '/api/people?q=ab']) {
      const res = await send(path);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'unauthenticated' });
    }
    const post = await send('/api/compose/send', { method: 'POST', json: { to: 'a@example.com' } });
    expect(post.status).toBe(401);
  });

  it('an expired session or a forged cookie is no session', async () => {
    const expired = await directSession('old@example.com', { expiresAt: Date.now() - 1000 });
    expect((await send('/api/folders', { cookie: expired.cookie })).status).toBe(401);
    expect((await send('/api/folders', { cookie: 'mail_session=' + 'A'.repeat(43) })).status).toBe(401);
    expect((await send('/api/folders', { cookie: 'mail_session=short' })).status).toBe(401);
  });

  it('a write without the anti-forgery token, with a wrong one, or from another origin is 403', async () => {
    const session = await directSession('writer@example.com');
    const body = { to: 'a@example.com', body: 'x' };
    const missing = await send('/api/compose/send', { method: 'POST', cookie: session.cookie, json: body });
    expect(missing.status).toBe(403);
    expect(await missing.json()).toMatchObject({ error: 'csrf_failed' });
    expect((await send('/api/compose/send', { method: 'POST', cookie: session.cookie, csrf: 'x'.repeat(43), json: body })).status).toBe(
      403,
    );
    const other = await directSession('other@example.com');
    expect((await send('/api/compose/send', { method: 'POST', cookie: session.cookie, csrf: other.csrf, json: body })).status).toBe(403);
    const foreign = await send('/api/compose/send', {
      method: 'POST',
      cookie: session.cookie,
      csrf: session.csrf,
      json: body,
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: 'forbidden_origin' });
    const crossSite = await send('/connect', {
      method: 'POST',
      cookie: session.cookie,
      form: { csrf_token: session.csrf },
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
  });
});

describe('headers', () => {
  it('pages carry a strict CSP, frame denial, nosniff and no-store', async () => {
    const session = await directSession('pages@example.com');
    for (const path of ['/outlook', '/admin', '/dashboard', '/trace/t-1', '/connect', '/login']) {
      const res = await send(path, path === '/login' ? {} : { cookie: session.cookie });
      // an unknown trace is a 404 page, with the same headers
      expect(res.status, path).toBe(path === '/trace/t-1' ? 404 : 200);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('errors carry them too, and JSON errors are no-store', async () => {
    const res = await send('/api/folders');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const page = await send('/no-such-page');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('an overlong address is 414', async () => {
    expect((await send(`/api/emails/inbox?q=${'x'.repeat(5000)}`)).status).toBe(414);
  });
});

describe('configuration', () => {
  it('refuses the published development secrets outside local development, and takes them locally', async () => {
    const { env } = await import('cloudflare:workers');
    // workers/mail/.dev.vars.example; the Worker is local only with a Postgres relay on loopback, as npm run dev gives every Worker.
    const published = {
      SESSION_SECRET: 'dev-only-mail-session-secret-change-me-0123456789',
      MAIL_TOKEN_SECRET: 'dev-only-mail-token-secret-change-me-0123456789',
      MS_CLIENT_ID: 'mail-assistant-dev',
    };
    const app = createMailApp();
    const deployed = await app.request('https://mail.test/api/auth-status', {}, { ...env, ...published, PG_WS_PROXY: undefined });
    expect(deployed.status).toBe(500);
    const body = await deployed.json<{ error: string; message: string }>();
    expect(body.error).toBe('configuration_error');
    expect(body.message).toMatch(
      /SESSION_SECRET is a published development value .*MAIL_TOKEN_SECRET is a published development value .*MS_CLIENT_ID is a published development value/,
    );
    const local = await app.request('https://mail.test/api/auth-status', {}, { ...env, ...published, PG_WS_PROXY: 'ws://127.0.0.1:8790' });
    expect(local.status).toBe(200);
    expect(await local.json()).toEqual({ authenticated: false });
  });
});

describe('pages', () => {
  it('/outlook is the mail client shell: folders, list, reading pane, compose with To/CC/BCC', async () => {
    const session = await directSession('client@example.com');
    const html = await (await send('/outlook', { cookie: session.cookie })).text();
    for (const part of [
      'data-folders',
      'data-messages',
      'data-reader',
      'id="compose-to"',
      'id="compose-cc"',
      'id="compose-bcc"',
      '/static/mail/outlook.js',
      `content="${session.csrf}"`,
    ])
      expect(html).toContain(part);
  });

  it('/admin answers an account not allowed the assistant as the other assistant pages do', async () => {
    // Not an admin domain of the test config, and not listed at /api/admin/users.
    const outsider = await directSession('outsider@elsewhere.test');
    const answers = await Promise.all(
      ['/admin', '/dashboard', '/admin/docdb-latest'].map(async (path) => {
        const res = await send(path, { cookie: outsider.cookie });
        return {
          status: res.status,
          type: res.headers.get('content-type'),
          allowed: (await res.text()).includes('may not use the assistant'),
        };
      }),
    );
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toEqual(answers[2]);
    expect(answers[0]!.status).toBe(403);
    expect(answers[0]!.allowed).toBe(true);
  });

  it('/trace/<id> refuses a malformed id with 400, an unknown one with 404', async () => {
    const session = await directSession('trace@example.com');
    expect((await send('/trace/bad%20id', { cookie: session.cookie })).status).toBe(400);
    expect((await send('/trace/abc-123', { cookie: session.cookie })).status).toBe(404);
  });

  it('/openapi.json documents the JSON routes', async () => {
    const doc = (await (await send('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/emails/{folder_name}', '/api/thread/{message_id}', '/api/compose/send', '/api/move/{message_id}']),
    );
  });
});
