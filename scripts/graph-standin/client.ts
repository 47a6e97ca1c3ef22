/**
 * A small client for tests, written with web-standard APIs only (fetch, Web Crypto), so tests in
 * Node and inside workerd can both use it: create a mailbox, sign in to it with the
 * authorization-code flow and PKCE, and call the control API.
 */

export type StandinMailbox = {
  id: string;
  loginHint: string;
  /** `${origin}/_standin/mailboxes/{id}`: the prefix of this mailbox's control calls */
  control: string;
  user: { id: string; displayName: string; mail: string; userPrincipalName: string };
};

export type StandinTokens = {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  expires_in: number;
  scope: string;
  token_type: string;
};

export const TEST_SCOPES = 'openid profile offline_access User.Read Mail.ReadWrite Mail.Send People.Read';

/** A new, isolated mailbox (seeded with the racing mailbox unless `seed: 'empty'`). */
export async function createMailbox(
  origin: string,
  input: { displayName?: string; mail?: string; seed?: 'racing' | 'empty' } = {},
): Promise<StandinMailbox> {
  const res = await fetch(`${origin}/_standin/mailboxes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  if (res.status !== 201) throw new Error(`creating a mailbox: ${res.status} ${await res.text()}`);
  return (await res.json()) as StandinMailbox;
}

/** The authorization-code flow with PKCE against the stand-in, as a Worker would run it. */
export async function signIn(
  origin: string,
  options: { loginHint?: string; clientId?: string; redirectUri?: string; scope?: string; tenant?: string } = {},
): Promise<StandinTokens> {
  const clientId = options.clientId ?? 'standin-test-client';
  const redirectUri = options.redirectUri ?? 'http://localhost/callback';
  const tenant = options.tenant ?? 'common';
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const authorize = new URL(`${origin}/${tenant}/oauth2/v2.0/authorize`);
  const params: Record<string, string> = {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: options.scope ?? TEST_SCOPES,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  if (options.loginHint) params.login_hint = options.loginHint;
  for (const [k, v] of Object.entries(params)) authorize.searchParams.set(k, v);
  const redirect = await fetch(authorize, { redirect: 'manual' });
  const location = redirect.headers.get('location');
  if (redirect.status !== 302 || !location) throw new Error(`authorize: ${redirect.status}`);
  const back = new URL(location);
  const code = back.searchParams.get('code');
  if (!code || back.searchParams.get('state') !== state)
    throw new Error(`authorize: ${back.searchParams.get('error')} ${back.searchParams.get('error_description')}`);
  const res = await fetch(`${origin}/${tenant}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: clientId,
    }),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return (await res.json()) as StandinTokens;
}

/** A control call on a mailbox (`control` from createMailbox, or `${origin}/_standin` for the default one). */
export async function control(scope: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${scope}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export type GraphAnswer<T = any> = { status: number; body: T; headers: Headers };

/** Calls Graph with a bearer token; `path` is relative to the Graph base or a full nextLink. */
export function graphClient(graphBase: string, accessToken: string, defaults: Record<string, string> = {}) {
  return async <T = any>(
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<GraphAnswer<T>> => {
    const headers: Record<string, string> = { authorization: `Bearer ${accessToken}`, ...defaults, ...init.headers };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path.startsWith('http') ? path : `${graphBase}${path}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    let body: unknown = text;
    if (res.headers.get('content-type')?.includes('json') && text) body = JSON.parse(text);
    return { status: res.status, body: body as T, headers: res.headers };
  };
}
