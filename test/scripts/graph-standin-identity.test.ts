import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, createMailbox, graphClient, signIn } from '../../scripts/graph-standin/client';
import { type GraphStandin, startGraphStandin } from '../../scripts/graph-standin/server';

let standin: GraphStandin;
beforeAll(async () => {
  standin = await startGraphStandin({ seed: 'empty' });
});
afterAll(() => standin.close());

const REDIRECT = 'https://mail.example/connect/callback';
const CLIENT = 'mail-test-client';

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function authorize(params: Record<string, string | undefined>) {
  const url = new URL(`${standin.url}/common/oauth2/v2.0/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  const res = await fetch(url, { redirect: 'manual' });
  return {
    status: res.status,
    location: res.headers.get('location') ? new URL(res.headers.get('location')!) : null,
    text: await res.text(),
  };
}

async function codeFor(loginHint: string, extra: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const res = await authorize({
    client_id: CLIENT,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'openid offline_access Mail.ReadWrite User.Read',
    state: 's1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    login_hint: loginHint,
    ...extra,
  });
  expect(res.status).toBe(302);
  const code = res.location!.searchParams.get('code');
  expect(code).toBeTruthy();
  return { code: code!, verifier };
}

type TokenAnswer = {
  token_type: string;
  scope: string;
  expires_in: number;
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  error?: string;
  error_description?: string;
  error_codes?: number[];
};

async function token(form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${standin.url}/common/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as TokenAnswer, headers: res.headers };
}

describe('identity stand-in: authorization code with PKCE', () => {
  it('consents at once and redirects with a code and the state', async () => {
    const box = await createMailbox(standin.url, { seed: 'empty' });
    const { challenge } = pkce();
    const res = await authorize({
      client_id: CLIENT,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'offline_access Mail.Read',
      state: 'abc/+=',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      login_hint: box.loginHint,
    });
    expect(res.status).toBe(302);
    expect(res.location!.origin + res.location!.pathname).toBe(REDIRECT);
    expect(res.location!.searchParams.get('state')).toBe('abc/+=');
    expect(res.location!.searchParams.get('code')).toMatch(/^[\w.-]{40,}$/);
  });

  it('redeems the code once for tokens, with no-store, an id token and a refresh token', async () => {
    const box = await createMailbox(standin.url, { seed: 'empty' });
    const { code, verifier } = await codeFor(box.loginHint, { nonce: 'n-123' });
    const res = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: CLIENT });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3599 });
    expect(res.body.scope.split(' ')).toEqual(expect.arrayContaining(['Mail.ReadWrite', 'User.Read', 'openid']));
    expect(res.body.refresh_token).toBeTruthy();
    const me = await graphClient(standin.graphBaseUrl, res.body.access_token)('/me');
    expect(me.body.mail).toBe(box.user.mail);
    // The id token verifies against the published keys and names the user and the nonce.
    const keys = (await (await fetch(`${standin.url}/common/discovery/v2.0/keys`)).json()) as { keys: [] };
    const { payload } = await jwtVerify(res.body.id_token!, createLocalJWKSet(keys), { audience: CLIENT });
    expect(payload).toMatchObject({ preferred_username: box.user.userPrincipalName, nonce: 'n-123', oid: box.user.id });
    const again = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: CLIENT,
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect(again.body.error_codes).toEqual([54005]);
  });

  it('issues no refresh token without offline_access and no id token without openid', async () => {
    const box = await createMailbox(standin.url, { seed: 'empty' });
    const tokens = await signIn(standin.url, { loginHint: box.loginHint, scope: 'Mail.Read' });
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.scope).toBe('Mail.Read');
  });

  it('binds the code to the verifier, the redirect URI and the client', async () => {
    const box = await createMailbox(standin.url, { seed: 'empty' });
    const cases: [Record<string, string>, number][] = [
      [{ code_verifier: pkce().verifier }, 501481],
      [{ code_verifier: '' }, 501481],
      [{ redirect_uri: 'https://evil.example/cb' }, 500117],
      [{ client_id: 'other-client' }, 70000],
    ];
    for (const [override, code] of cases) {
      const grant = await codeFor(box.loginHint);
      const res = await token({
        grant_type: 'authorization_code',
        code: grant.code,
        redirect_uri: REDIRECT,
        code_verifier: grant.verifier,
        client_id: CLIENT,
        ...override,
      });
      expect(res.status, JSON.stringify(override)).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
      expect(res.body.error_codes).toEqual([code]);
    }
  });

  it('lets a code expire after 10 minutes on the mailbox clock', async () => {
    const box = await createMailbox(standin.url, { seed: 'empty' });
    const grant = await codeFor(box.loginHint);
    await control(box.control, 'POST', '/clock', { advanceMs: 11 * 60_000 });
    const res = await token({
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: REDIRECT,
      code_verifier: grant.verifier,
      client_id: CLIENT,
    });
    expect(res.body.error_codes).toEqual([70008]);
  });

  it('accepts the client id by HTTP Basic as well, and refuses a mismatch', async () => {
    const box = await createMailbox(standin.url, { seed: 'empty' });
    const grant = await codeFor(box.loginHint);
    const basic = `Basic ${Buffer.from(`${CLIENT}:secret`).toString('base64')}`;
    const ok = await token(
      { grant_type: 'authorization_code', code: grant.code, redirect_uri: REDIRECT, code_verifier: grant.verifier },
      { authorization: basic },
    );
    expect(ok.status).toBe(200);
    const grant2 = await codeFor(box.loginHint);
    const mismatch = await token(
      {
        grant_type: 'authorization_code',
        code: grant2.code,
        redirect_uri: REDIRECT,
        code_verifier: grant2.verifier,
        client_id: 'someone-else',
      },
      { authorization: basic },
    );
    expect(mismatch.status).toBe(401);
    expect(mismatch.body.error).toBe('invalid_client');
  });

  it('sends request errors back to the app as redirects, keeping the state', async () => {
    const { challenge } = pkce();
    const base = {
      client_id: CLIENT,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'Mail.Read',
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const cases: [Record<string, string | undefined>, string][] = [
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: 'short' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'Mail.Read Files.ReadWrite.All' }, 'invalid_scope'],
      [{ login_hint: 'nobody@nowhere.example' }, 'invalid_request'],
      [{ response_mode: 'form_post' }, 'invalid_request'],
    ];
    for (const [override, error] of cases) {
      const res = await authorize({ ...base, ...override });
      expect(res.status, JSON.stringify(override)).toBe(302);
      expect(res.location!.searchParams.get('error')).toBe(error);
      expect(res.location!.searchParams.get('error_description')).toMatch(/^AADSTS\d+/);
      expect(res.location!.searchParams.get('state')).toBe('st');
      expect(res.location!.searchParams.get('code')).toBeNull();
    }
  });

  it('never redirects to an invalid redirect URI or without a client', async () => {
    for (const params of [
      { redirect_uri: 'javascript:alert(1)' },
      { redirect_uri: 'not a url' },
      { redirect_uri: undefined },
      { client_id: undefined },
    ]) {
      const res = await authorize({
        client_id: CLIENT,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'Mail.Read',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        ...params,
      });
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.location).toBeNull();
      expect(res.text).not.toContain('<script');
    }
  });

  it('plays a declined consent once, when told to', async () => {
    const box = await createMailbox(standin.url, { seed: 'empty' });
    expect((await control(box.control, 'POST', '/authorize-error', { error: 'access_denied' })).status).toBe(204);
    const { challenge } = pkce();
    const params = {
      client_id: CLIENT,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'Mail.Read',
      state: 'x',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      login_hint: box.loginHint,
    };
    const denied = await authorize(params);
    expect(denied.location!.searchParams.get('error')).toBe('access_denied');
    const next = await authorize(params);
    expect(next.location!.searchParams.get('code')).toBeTruthy();
  });

  it('refuses malformed token requests clearly', async () => {
    const form = await token({ grant_type: 'password', client_id: CLIENT });
    expect(form.body.error).toBe('unsupported_grant_type');
    expect((await token({ client_id: CLIENT })).body.error).toBe('invalid_request');
    expect((await token({ grant_type: 'authorization_code' })).body.error).toBe('invalid_request');
    expect((await token({ grant_type: 'authorization_code', client_id: CLIENT, code: 'made-up' })).body.error).toBe('invalid_grant');
    const json = await fetch(`${standin.url}/common/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
    const get = await fetch(`${standin.url}/common/oauth2/v2.0/token`);
    expect(get.status).toBe(405);
  });
});

describe('identity stand-in: refresh tokens', () => {
  it('rotates refresh tokens and refuses the used one by default', async () => {
    const box = await createMailbox(standin.url, { seed: 'empty' });
    const first = await signIn(standin.url, { loginHint: box.loginHint, clientId: CLIENT });
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token!,
      client_id: CLIENT,
      scope: 'offline_access Mail.ReadWrite',
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
    expect(refreshed.body.access_token).not.toBe(first.access_token);
    const reused = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: CLIENT });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    const log = (await (await control(box.control, 'GET', '/log')).json()) as { refreshGrants: number };
    expect(log.refreshGrants).toBe(1);
    // Microsoft's own leniency, when asked for.
    await control(box.control, 'POST', '/tokens', { refreshTokenReuse: 'allow' });
    expect((await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: CLIENT })).status).toBe(200);
  });

  it('shortens token lifetimes on request, so refresh at expiry can be tested', async () => {
    const box = await createMailbox(standin.url, { seed: 'empty' });
    const settings = await control(box.control, 'POST', '/tokens', { accessTokenLifetime: 60 });
    expect(((await settings.json()) as { accessTokenLifetime: number }).accessTokenLifetime).toBe(60);
    const tokens = await signIn(standin.url, { loginHint: box.loginHint, clientId: CLIENT });
    expect(tokens.expires_in).toBe(60);
    const graph = graphClient(standin.graphBaseUrl, tokens.access_token);
    expect((await graph('/me')).status).toBe(200);
    await control(box.control, 'POST', '/clock', { advanceMs: 61_000 });
    const expired = await graph('/me');
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toMatch(/expired/);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: CLIENT });
    expect((await graphClient(standin.graphBaseUrl, refreshed.body.access_token)('/me')).status).toBe(200);
  });

  it('expires access tokens and revokes refresh tokens on request', async () => {
    const box = await createMailbox(standin.url, { seed: 'empty' });
    const tokens = await signIn(standin.url, { loginHint: box.loginHint, clientId: CLIENT });
    expect((await control(box.control, 'POST', '/tokens/expire')).status).toBe(204);
    expect((await graphClient(standin.graphBaseUrl, tokens.access_token)('/me')).status).toBe(401);
    expect((await control(box.control, 'POST', '/tokens/revoke')).status).toBe(204);
    const refused = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: CLIENT });
    expect(refused.body.error_codes).toEqual([50173]);
  });

  it('refuses a refresh token of another client or for scopes never consented', async () => {
    const box = await createMailbox(standin.url, { seed: 'empty' });
    const tokens = await signIn(standin.url, { loginHint: box.loginHint, clientId: CLIENT, scope: 'offline_access Mail.Read' });
    expect((await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: 'other' })).body.error).toBe(
      'invalid_grant',
    );
    const widened = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: CLIENT,
      scope: 'offline_access Mail.Read Mail.Send',
    });
    expect(widened.status).toBe(400);
    expect(widened.body.error_codes).toEqual([65001]);
    const same = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: CLIENT,
      scope: 'https://graph.microsoft.com/Mail.Read offline_access',
    });
    expect(same.status).toBe(200);
    expect(same.body.scope).toBe('Mail.Read');
  });
});

describe('identity stand-in: discovery', () => {
  it('publishes OpenID metadata and keys', async () => {
    const meta = (await (await fetch(`${standin.url}/organizations/v2.0/.well-known/openid-configuration`)).json()) as Record<
      string,
      string
    >;
    expect(meta.issuer).toBe(`${standin.url}/{tenantid}/v2.0`);
    expect(meta.token_endpoint).toBe(`${standin.url}/organizations/oauth2/v2.0/token`);
    const keys = (await (await fetch(meta.jwks_uri!)).json()) as { keys: { kty: string; kid: string }[] };
    expect(keys.keys[0]).toMatchObject({ kty: 'RSA' });
  });
});
