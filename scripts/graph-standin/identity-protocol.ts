import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { Reply } from './account.ts';
import { escapeHtml } from './http.ts';
import { guid } from './ids.ts';

/** The identity platform's fixed parts: tenant, scopes, signing, the discovery document and its error forms. */

export const TENANT_ID = '7f3c2a1e-5b8d-4c6f-9a0e-2d4b6c8e0f13';
const GRAPH_RESOURCE = 'https://graph.microsoft.com/';
export const OIDC_SCOPES = new Set(['openid', 'profile', 'email', 'offline_access']);
/** Graph permissions the stand-in knows; `.default` grants them all. */
export const GRAPH_SCOPES = [
  'User.Read',
  'Mail.Read',
  'Mail.ReadWrite',
  'Mail.Send',
  'People.Read',
  'MailboxSettings.Read',
  'MailboxSettings.ReadWrite',
];

/** The stand-in's RSA signing key: signs JWTs (RS256) and publishes its public key as a JWK. */
export class TokenSigner {
  private readonly signingKey: KeyObject;
  private readonly keyId: string;
  readonly publicJwk: Record<string, unknown>;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.signingKey = privateKey;
    this.keyId = createHash('sha256')
      .update(publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64url')
      .slice(0, 27);
    this.publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: this.keyId, use: 'sig', kty: 'RSA', alg: 'RS256', x5t: this.keyId };
  }

  jwt(claims: Record<string, unknown>): string {
    const header = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'RS256', kid: this.keyId })).toString('base64url');
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), this.signingKey).toString('base64url');
    return `${header}.${payload}.${signature}`;
  }
}

/** The OpenID configuration document of a tenant (`common` and the like publish the `{tenantid}` issuer template). */
export function discoveryDocument(base: string, tenant: string): Record<string, unknown> {
  const issuerTenant = /^(common|organizations|consumers)$/i.test(tenant) ? '{tenantid}' : TENANT_ID;
  return {
    issuer: `${base}/${issuerTenant}/v2.0`,
    authorization_endpoint: `${base}/${tenant}/oauth2/v2.0/authorize`,
    token_endpoint: `${base}/${tenant}/oauth2/v2.0/token`,
    jwks_uri: `${base}/${tenant}/discovery/v2.0/keys`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    code_challenge_methods_supported: ['S256'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    tenant_region_scope: 'OC',
  };
}

/** Space-separated scopes; Graph's resource prefix is dropped, `.default` grants every Graph scope. */
export function parseScopes(raw: string | null): string[] | null {
  if (!raw || !raw.trim()) return null;
  const out = new Set<string>();
  for (const part of raw.trim().split(/\s+/)) {
    const name = part.startsWith(GRAPH_RESOURCE) ? part.slice(GRAPH_RESOURCE.length) : part;
    if (name === '.default') {
      for (const s of GRAPH_SCOPES) out.add(s);
      continue;
    }
    const known =
      GRAPH_SCOPES.find((s) => s.toLowerCase() === name.toLowerCase()) ?? [...OIDC_SCOPES].find((s) => s === name.toLowerCase());
    if (!known) return null;
    out.add(known);
  }
  return [...out];
}

export function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.hash;
  } catch {
    return false;
  }
}

export function tokenError(status: number, error: string, code: number, description: string): Reply {
  const traceId = guid();
  return {
    status,
    headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
    json: {
      error,
      error_description: `${description}\r\nTrace ID: ${traceId}\r\nCorrelation ID: ${guid()}\r\nTimestamp: ${new Date().toISOString().replace('T', ' ').slice(0, 19)}Z`,
      error_codes: [code],
      timestamp: new Date().toISOString().replace('T', ' ').slice(0, 19) + 'Z',
      trace_id: traceId,
      correlation_id: guid(),
      error_uri: `https://login.microsoftonline.com/error?code=${code}`,
    },
  };
}

export function errorPage(status: number, code: string, message: string): Reply {
  return {
    status,
    contentType: 'text/html; charset=utf-8',
    text: `<!doctype html><title>Sign in to your account</title><h1>Sorry, but we’re having trouble signing you in.</h1><p>${escapeHtml(code)}: ${escapeHtml(message)}</p>`,
  };
}
