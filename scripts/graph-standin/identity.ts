import { createHash } from 'node:crypto';
import type { Account, Reply } from './account.ts';
import { guid, randomToken } from './ids.ts';
import {
  OIDC_SCOPES,
  TENANT_ID,
  TokenSigner,
  discoveryDocument,
  errorPage,
  isAbsoluteHttpUrl,
  parseScopes,
  tokenError,
} from './identity-protocol.ts';

/**
 * The Microsoft identity platform's authorization-code flow with PKCE, as the stand-in plays it:
 * `/{tenant}/oauth2/v2.0/authorize` consents at once and redirects with a code;
 * `/{tenant}/oauth2/v2.0/token` redeems codes and (rotating) refresh tokens.
 */

const CODE_LIFETIME_MS = 10 * 60_000;
const REFRESH_LIFETIME_MS = 90 * 86_400_000;

type AuthCode = {
  mailboxKey: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  scopes: string[];
  nonce: string | null;
  expiresAt: number;
  redeemed: boolean;
};

export type AccessToken = { id: string; mailboxKey: string; clientId: string; scopes: string[]; expiresAt: number };

type RefreshToken = { mailboxKey: string; clientId: string; scopes: string[]; expiresAt: number; rotated: boolean; revoked: boolean };

export type IdentityContext = {
  accountByHint(hint: string | null): Account | undefined;
  account(key: string): Account | undefined;
  /** the stand-in's own base URL, for the issuer and discovery document */
  baseUrl: string;
};

export class Identity {
  private readonly codes = new Map<string, AuthCode>();
  private readonly accessTokens = new Map<string, AccessToken>();
  private readonly refreshTokens = new Map<string, RefreshToken>();
  private readonly signer = new TokenSigner();
  private tokenCounter = 0;

  constructor(private readonly ctx: IdentityContext) {}

  /** The mailbox an authorize request signs in to: by `login_hint`, else the default one. */
  accountByHint(hint: string | null): Account | undefined {
    return this.ctx.accountByHint(hint);
  }

  /** The account a request belongs to, from a code or refresh token in its form (for faults and logs). */
  accountOfGrant(form: URLSearchParams): Account | undefined {
    const code = form.get('code');
    const refresh = form.get('refresh_token');
    const key = (code && this.codes.get(code)?.mailboxKey) ?? (refresh && this.refreshTokens.get(refresh)?.mailboxKey);
    return key ? this.ctx.account(key) : undefined;
  }

  accessToken(token: string): AccessToken | undefined {
    return this.accessTokens.get(token);
  }

  /** Control: every access token of the mailbox expires now. */
  expireAccessTokens(account: Account) {
    for (const t of this.accessTokens.values()) if (t.mailboxKey === account.key) t.expiresAt = account.mailbox.now() - 1000;
  }

  /** Control: every token of the mailbox stops working (as when the user revokes the app's consent). */
  revokeTokens(account: Account) {
    this.expireAccessTokens(account);
    for (const t of this.refreshTokens.values()) if (t.mailboxKey === account.key) t.revoked = true;
  }

  // ------------------------------------------------------------------ authorize

  authorize(query: URLSearchParams, account: Account | undefined): Reply {
    const clientId = query.get('client_id');
    const redirectUri = query.get('redirect_uri');
    // Without a valid client and redirect URI there is nowhere safe to send an error: a page.
    if (!clientId) return errorPage(400, 'AADSTS900144', "The request body must contain the following parameter: 'client_id'.");
    if (!redirectUri || !isAbsoluteHttpUrl(redirectUri)) {
      return errorPage(
        400,
        'AADSTS50011',
        'The redirect URI specified in the request does not match the redirect URIs configured for the application.',
      );
    }
    const state = query.get('state');
    const fail = (error: string, description: string): Reply => {
      const target = new URL(redirectUri);
      target.searchParams.set('error', error);
      target.searchParams.set('error_description', description);
      if (state !== null) target.searchParams.set('state', state);
      return { status: 302, headers: { location: target.toString() } };
    };
    if (query.get('response_type') !== 'code') return fail('unsupported_response_type', 'AADSTS700054: response_type must be code.');
    const responseMode = query.get('response_mode');
    if (responseMode !== null && responseMode !== 'query')
      return fail('invalid_request', `AADSTS900120: response_mode '${responseMode}' is not supported by this stand-in; use query.`);
    const challenge = query.get('code_challenge');
    const method = query.get('code_challenge_method');
    if (!challenge) return fail('invalid_request', 'AADSTS9002325: Proof Key for Code Exchange is required for this request.');
    if (method !== 'S256') return fail('invalid_request', 'AADSTS501491: Invalid code_challenge_method: only S256 is accepted.');
    if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) return fail('invalid_request', 'AADSTS501478: The code_challenge is malformed.');
    const scopes = parseScopes(query.get('scope'));
    if (scopes === null) return fail('invalid_scope', "AADSTS70011: The provided value for the input parameter 'scope' is not valid.");
    if (!account)
      return fail('invalid_request', `AADSTS50034: The user account ${query.get('login_hint') ?? ''} does not exist in this directory.`);
    if (account.authorizeError) {
      const { error, description } = account.authorizeError;
      account.authorizeError = null;
      return fail(error, description);
    }
    const code = '1.AXk' + randomToken(48);
    this.codes.set(code, {
      mailboxKey: account.key,
      clientId,
      redirectUri,
      challenge,
      scopes,
      nonce: query.get('nonce'),
      expiresAt: account.mailbox.now() + CODE_LIFETIME_MS,
      redeemed: false,
    });
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    if (state !== null) target.searchParams.set('state', state);
    target.searchParams.set('session_state', guid());
    return { status: 302, headers: { location: target.toString() } };
  }

  // ------------------------------------------------------------------ token

  token(tenant: string, form: URLSearchParams, authorization: string | undefined, contentType: string | undefined): Reply {
    if (!contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
      return tokenError(
        400,
        'invalid_request',
        900144,
        "AADSTS900144: The request body must contain the following parameter: 'grant_type'.",
      );
    }
    let clientId = form.get('client_id');
    if (authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
      const basicId = decodeURIComponent(decoded.slice(0, decoded.indexOf(':')));
      if (clientId && clientId !== basicId)
        return tokenError(401, 'invalid_client', 7000215, 'AADSTS7000215: Invalid client secret provided.');
      clientId = basicId;
    }
    if (!clientId)
      return tokenError(
        400,
        'invalid_request',
        900144,
        "AADSTS900144: The request body must contain the following parameter: 'client_id'.",
      );
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') return this.redeemCode(tenant, clientId, form);
    if (grantType === 'refresh_token') return this.redeemRefresh(tenant, clientId, form);
    if (!grantType)
      return tokenError(
        400,
        'invalid_request',
        900144,
        "AADSTS900144: The request body must contain the following parameter: 'grant_type'.",
      );
    return tokenError(400, 'unsupported_grant_type', 70003, `AADSTS70003: The app requested an unsupported grant type '${grantType}'.`);
  }

  private redeemCode(tenant: string, clientId: string, form: URLSearchParams): Reply {
    const code = form.get('code');
    if (!code)
      return tokenError(400, 'invalid_request', 900144, "AADSTS900144: The request body must contain the following parameter: 'code'.");
    const grant = this.codes.get(code);
    const account = grant && this.ctx.account(grant.mailboxKey);
    if (!grant || !account)
      return tokenError(400, 'invalid_grant', 9002313, 'AADSTS9002313: Invalid request. Request is malformed or invalid.');
    if (grant.redeemed) {
      return tokenError(
        400,
        'invalid_grant',
        54005,
        'AADSTS54005: OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.',
      );
    }
    if (account.mailbox.now() > grant.expiresAt) {
      return tokenError(
        400,
        'invalid_grant',
        70008,
        'AADSTS70008: The provided authorization code or refresh token has expired due to inactivity.',
      );
    }
    if (grant.clientId !== clientId)
      return tokenError(400, 'invalid_grant', 70000, 'AADSTS70000: The provided authorization code was issued to a different client.');
    if (form.get('redirect_uri') !== grant.redirectUri) {
      return tokenError(
        400,
        'invalid_grant',
        500117,
        'AADSTS500117: The reply uri specified in the request does not match the reply uri used in the authorization request.',
      );
    }
    const verifier = form.get('code_verifier');
    if (!verifier) return tokenError(400, 'invalid_grant', 501481, 'AADSTS501481: The Code_Verifier is missing.');
    if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) {
      return tokenError(
        400,
        'invalid_grant',
        501481,
        'AADSTS501481: The Code_Verifier does not match the code_challenge supplied in the authorization request.',
      );
    }
    grant.redeemed = true;
    return this.issue(tenant, account, clientId, grant.scopes, grant.nonce);
  }

  private redeemRefresh(tenant: string, clientId: string, form: URLSearchParams): Reply {
    const token = form.get('refresh_token');
    if (!token)
      return tokenError(
        400,
        'invalid_request',
        900144,
        "AADSTS900144: The request body must contain the following parameter: 'refresh_token'.",
      );
    const grant = this.refreshTokens.get(token);
    const account = grant && this.ctx.account(grant.mailboxKey);
    if (!grant || !account)
      return tokenError(400, 'invalid_grant', 9002313, 'AADSTS9002313: Invalid request. Request is malformed or invalid.');
    if (grant.revoked)
      return tokenError(
        400,
        'invalid_grant',
        50173,
        'AADSTS50173: The provided grant has expired due to it being revoked, a fresh auth token is needed.',
      );
    if (account.mailbox.now() > grant.expiresAt) {
      return tokenError(400, 'invalid_grant', 700082, 'AADSTS700082: The refresh token has expired due to inactivity.');
    }
    if (grant.clientId !== clientId)
      return tokenError(400, 'invalid_grant', 70000, 'AADSTS70000: The refresh token was issued to a different client.');
    if (grant.rotated && account.refreshTokenReuse === 'reject') {
      return tokenError(400, 'invalid_grant', 70000, 'AADSTS70000: The provided refresh token has already been used to redeem a new one.');
    }
    const requested = form.has('scope') ? parseScopes(form.get('scope')) : grant.scopes;
    if (requested === null)
      return tokenError(400, 'invalid_scope', 70011, "AADSTS70011: The provided value for the input parameter 'scope' is not valid.");
    const unconsented = requested.filter((s) => !OIDC_SCOPES.has(s) && !grant.scopes.includes(s));
    if (unconsented.length > 0) {
      return tokenError(
        400,
        'invalid_grant',
        65001,
        `AADSTS65001: The user or administrator has not consented to use the application for ${unconsented.join(' ')}. Send an interactive authorization request for this user and resource.`,
      );
    }
    const scopes = requested.filter((s) => OIDC_SCOPES.has(s) || grant.scopes.includes(s));
    if (!scopes.includes('offline_access') && grant.scopes.includes('offline_access')) scopes.push('offline_access');
    grant.rotated = true;
    account.refreshGrants += 1;
    return this.issue(tenant, account, clientId, scopes, null);
  }

  private issue(tenant: string, account: Account, clientId: string, scopes: string[], nonce: string | null): Reply {
    const now = account.mailbox.now();
    const lifetime = account.accessTokenLifetime;
    const graphScopes = scopes.filter((s) => !OIDC_SCOPES.has(s));
    const granted = graphScopes.length > 0 ? graphScopes : ['User.Read'];
    this.tokenCounter += 1;
    const user = account.mailbox.user;
    const accessToken = this.signer.jwt({
      aud: '00000003-0000-0000-c000-000000000000',
      iss: `https://sts.windows.net/${TENANT_ID}/`,
      iat: Math.floor(now / 1000),
      nbf: Math.floor(now / 1000),
      exp: Math.floor(now / 1000) + lifetime,
      appid: clientId,
      name: user.displayName,
      oid: user.id,
      scp: granted.join(' '),
      tid: TENANT_ID,
      upn: user.userPrincipalName,
      uti: randomToken(16),
    });
    this.accessTokens.set(accessToken, {
      id: `at-${this.tokenCounter}`,
      mailboxKey: account.key,
      clientId,
      scopes: granted,
      expiresAt: now + lifetime * 1000,
    });
    const body: Record<string, unknown> = {
      token_type: 'Bearer',
      scope: [...granted, ...scopes.filter((s) => OIDC_SCOPES.has(s) && s !== 'offline_access')].join(' '),
      expires_in: lifetime,
      ext_expires_in: lifetime,
      access_token: accessToken,
    };
    if (scopes.includes('offline_access')) {
      const refreshToken = '1.AXkA' + randomToken(64);
      this.refreshTokens.set(refreshToken, {
        mailboxKey: account.key,
        clientId,
        scopes,
        expiresAt: now + REFRESH_LIFETIME_MS,
        rotated: false,
        revoked: false,
      });
      body.refresh_token = refreshToken;
    }
    if (scopes.includes('openid')) {
      body.id_token = this.signer.jwt({
        aud: clientId,
        iss: `${this.ctx.baseUrl}/${TENANT_ID}/v2.0`,
        iat: Math.floor(now / 1000),
        nbf: Math.floor(now / 1000),
        exp: Math.floor(now / 1000) + 3600,
        name: user.displayName,
        oid: user.id,
        preferred_username: user.userPrincipalName,
        ...(scopes.includes('email') ? { email: user.mail } : {}),
        sub: createHash('sha256').update(`${clientId}:${user.id}`).digest('base64url').slice(0, 43),
        tid: TENANT_ID,
        ver: '2.0',
        ...(nonce ? { nonce } : {}),
      });
    }
    void tenant;
    return { status: 200, json: body, headers: { 'cache-control': 'no-store', pragma: 'no-cache' } };
  }

  // ------------------------------------------------------------------ discovery

  /** OpenID configuration: for a GUID tenant its own issuer; for common/organizations the `{tenantid}` template, as Microsoft publishes it. */
  discovery(tenant: string): Reply {
    return { status: 200, json: discoveryDocument(this.ctx.baseUrl, tenant) };
  }

  keys(): Reply {
    return { status: 200, json: { keys: [this.signer.publicJwk] } };
  }
}
