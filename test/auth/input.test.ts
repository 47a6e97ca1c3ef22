import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../workers/auth/src/app';
import { CLIENT_SECRET, post } from './helpers';

const routes = [
  { path: '/api/login/', valid: { email: 'a@example.com', password: 'pw', site: '' }, fields: ['email', 'password'] },
  { path: '/api/verify-2fa/', valid: { pending_token: 'x'.repeat(43), code: '123456' }, fields: ['pending_token', 'code'] },
  { path: '/api/token/refresh/', valid: { refresh_token: 'rt.x.y' }, fields: ['refresh_token'] },
  { path: '/api/token/revoke/', valid: { refresh_token: 'rt.x.y' }, fields: ['refresh_token'] },
];

type Failure = { success: false; error: string; issues?: { field: string; message: string }[] };

describe.each(routes)('$path', ({ path, valid, fields }) => {
  it('answers 401 without the client secret, with a wrong one, or one of another length', async () => {
    for (const secret of [null, '', 'wrong', `${CLIENT_SECRET}x`, CLIENT_SECRET.toUpperCase()]) {
      const res = await post(path, valid, { secret });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ success: false, error: 'The client secret is missing or wrong.' });
    }
  });

  it('checks the client secret before the body', async () => {
    expect((await post(path, '{not json', { secret: null })).status).toBe(401);
  });

  it.each(fields)('answers 400 naming a missing %s', async (field) => {
    const body: Record<string, unknown> = { ...valid };
    delete body[field];
    const res = await post(path, body);
    expect(res.status).toBe(400);
    const failure = await res.json<Failure>();
    expect(failure.success).toBe(false);
    expect(failure.issues?.map((i) => i.field)).toContain(`json.${field}`);
  });

  it.each([...fields, ...(path === '/api/login/' ? ['site'] : [])])('answers 400 for a %s of the wrong type', async (field) => {
    for (const value of [123, null, true, ['a'], { a: 1 }]) {
      const res = await post(path, { ...valid, [field]: value });
      expect(res.status).toBe(400);
      expect((await res.json<Failure>()).issues?.map((i) => i.field)).toContain(`json.${field}`);
    }
  });

  it('answers 400 for malformed JSON and for a body that is not an object', async () => {
    for (const body of ['{"email":', 'null', '[]', '"text"', '42', '']) {
      const res = await post(path, body);
      expect(res.status, body).toBe(400);
      expect((await res.json<Failure>()).success).toBe(false);
    }
  });

  it('answers 400 for a field longer than its limit', async () => {
    const res = await post(path, { ...valid, [fields[0]!]: 'x'.repeat(5000) });
    expect(res.status).toBe(400);
  });

  it('answers 413 for a huge body, before reading it all', async () => {
    const res = await post(path, { ...valid, padding: 'x'.repeat(MAX_BODY_BYTES * 4) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ success: false, error: `The request body is larger than ${MAX_BODY_BYTES} bytes.` });
  });

  it('answers 415 for a form-encoded body', async () => {
    const res = await exports.default.fetch(`https://auth.test${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-auth-client-secret': CLIENT_SECRET },
      body: new URLSearchParams(Object.fromEntries(Object.entries(valid).map(([k, v]) => [k, String(v)]))).toString(),
    });
    expect(res.status).toBe(415);
    expect((await res.json<Failure>()).success).toBe(false);
  });

  it('answers 404 without the trailing slash and 404/405-free JSON for the wrong method', async () => {
    expect((await post(path.replace(/\/$/, ''), valid)).status).toBe(404);
    const get = await exports.default.fetch(`https://auth.test${path}`, { headers: { 'x-auth-client-secret': CLIENT_SECRET } });
    expect(get.status).toBe(404);
    expect(get.headers.get('content-type')).toMatch(/json/);
  });
});

describe('GET /api/whoami/ input', () => {
  it('ignores the client secret and answers 401 for a huge or odd Authorization header', async () => {
    for (const authorization of [`Bearer ${'x'.repeat(20_000)}`, 'Bearer a b', 'bearer', '\u00e9']) {
      const res = await exports.default.fetch('https://auth.test/api/whoami/', { headers: { authorization: encodeURI(authorization) } });
      expect(res.status).toBe(401);
    }
    const withQuery = await exports.default.fetch(`https://auth.test/api/whoami/?${'q=1&'.repeat(2000)}`);
    expect(withQuery.status).toBe(401);
  });
});

describe('configuration', () => {
  it('answers 500 naming a missing or malformed secret, never falling back to a default', async () => {
    const { env } = await import('cloudflare:workers');
    const { createAuthApp } = await import('../../workers/auth/src/app');
    const app = createAuthApp();
    const missing = await app.request('/api/whoami/', {}, { ...env, AUTH_TOKEN_SECRET: undefined });
    expect(missing.status).toBe(500);
    expect(await missing.json()).toEqual({
      success: false,
      error: 'The service is misconfigured: AUTH_TOKEN_SECRET is not set',
      code: 'configuration_error',
    });
    const short = await app.request('/api/login/', { method: 'POST' }, { ...env, AUTH_SSO_SHARED_SECRET: 'x' });
    expect(short.status).toBe(500);
    expect((await short.json<{ error: string }>()).error).toMatch(/AUTH_SSO_SHARED_SECRET: must be at least 8 characters/);
    const badNumber = await app.request('/api/whoami/', {}, { ...env, AUTH_ACCESS_TOKEN_MAX_AGE: 'soon' });
    expect((await badNumber.json<{ error: string }>()).error).toMatch(/AUTH_ACCESS_TOKEN_MAX_AGE: must be a positive integer/);
  });

  it('refuses the published development secrets outside local development, and takes them locally', async () => {
    const { env } = await import('cloudflare:workers');
    const { createAuthApp } = await import('../../workers/auth/src/app');
    const app = createAuthApp();
    // workers/auth/.dev.vars.example
    const published = {
      AUTH_TOKEN_SECRET: 'dev-token-secret-change-me-in-production-0123456789',
      AUTH_TOTP_ENCRYPTION_KEY: 'ZGV2LXRvdHAta2V5LTMyLWJ5dGVzLWxvbmctLS0tLS0=',
    };
    const deployed = await app.request('/api/whoami/', {}, { ...env, ...published, PG_WS_PROXY: undefined });
    expect(deployed.status).toBe(500);
    const body = await deployed.json<{ error: string; code: string }>();
    expect(body.code).toBe('configuration_error');
    expect(body.error).toMatch(
      /AUTH_TOKEN_SECRET is a published development value .*; AUTH_TOTP_ENCRYPTION_KEY is a published development value/,
    );
    expect(body.error).not.toContain(published.AUTH_TOKEN_SECRET);
    const local = await app.request('/api/whoami/', {}, { ...env, ...published, PG_WS_PROXY: 'ws://127.0.0.1:8790' });
    expect(local.status).toBe(401);
  });
});
