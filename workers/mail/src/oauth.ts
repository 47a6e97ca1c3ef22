import * as oauth from 'oauth4webapi';
import { type MailConfig, isLoopback } from './config.ts';

/**
 * The Microsoft identity platform's authorization-code flow with PKCE, through oauth4webapi.
 * Endpoints come from IDENTITY_BASE_URL and the tenant, so the stand-in and Microsoft are reached
 * the same way.
 */

export type OAuthSettings = Pick<MailConfig, 'IDENTITY_BASE_URL' | 'MS_TENANT' | 'MS_CLIENT_ID' | 'MS_CLIENT_SECRET' | 'MS_SCOPES'>;

/** The tokens a grant answers, with the absolute expiry of the access token. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  /** Unix ms */
  expiresAt: number;
  /** Seconds the access token was issued for. */
  lifetime: number;
  scope: string;
}

/** The identity platform refused the grant (expired, revoked or reused refresh token, bad code). */
export class GrantRefused extends Error {
  constructor(
    readonly error: string,
    description?: string,
  ) {
    super(description ? `${error}: ${description}` : error);
    this.name = 'GrantRefused';
  }
}

const TOKEN_TIMEOUT_MS = 10_000;

export function authorizationServer(settings: OAuthSettings): oauth.AuthorizationServer {
  const base = `${settings.IDENTITY_BASE_URL}/${settings.MS_TENANT}`;
  return {
    issuer: `${base}/v2.0`,
    authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
    token_endpoint: `${base}/oauth2/v2.0/token`,
  };
}

const client = (settings: OAuthSettings): oauth.Client => ({ client_id: settings.MS_CLIENT_ID });
const clientAuth = (settings: OAuthSettings) =>
  settings.MS_CLIENT_SECRET ? oauth.ClientSecretPost(settings.MS_CLIENT_SECRET) : oauth.None();

function requestOptions(settings: OAuthSettings, extra: Record<string, string> = {}): oauth.TokenEndpointRequestOptions {
  return {
    signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    additionalParameters: extra,
    // The stand-in speaks plain HTTP on this machine; Microsoft is always HTTPS.
    ...(isLoopback(settings.IDENTITY_BASE_URL) ? { [oauth.allowInsecureRequests]: true } : {}),
  };
}

/** A fresh PKCE verifier and state, and the address that asks the user for consent. */
export async function startAuthorization(settings: OAuthSettings, redirectUri: string, loginHint?: string) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(authorizationServer(settings).authorization_endpoint!);
  url.searchParams.set('client_id', settings.MS_CLIENT_ID);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('response_mode', 'query');
  url.searchParams.set('scope', settings.MS_SCOPES);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  if (loginHint) url.searchParams.set('login_hint', loginHint);
  return { url, verifier, state };
}

function tokenSet(response: oauth.TokenEndpointResponse, previousRefreshToken?: string): TokenSet {
  const refreshToken = response.refresh_token ?? previousRefreshToken;
  if (!refreshToken)
    throw new GrantRefused('no_refresh_token', 'the identity platform answered no refresh token (is offline_access granted?)');
  const lifetime = typeof response.expires_in === 'number' && response.expires_in > 0 ? response.expires_in : 3600;
  return {
    accessToken: response.access_token,
    refreshToken,
    expiresAt: Date.now() + lifetime * 1000,
    lifetime,
    scope: response.scope ?? '',
  };
}

function refused(err: unknown): never {
  if (err instanceof oauth.ResponseBodyError) throw new GrantRefused(err.error, err.error_description);
  if (err instanceof oauth.AuthorizationResponseError) throw new GrantRefused(err.error, err.error_description);
  throw err;
}

/** Checks the redirect's state and exchanges its code (with the PKCE verifier) for tokens. */
export async function finishAuthorization(
  settings: OAuthSettings,
  callback: URL,
  expectedState: string,
  verifier: string,
  redirectUri: string,
): Promise<TokenSet> {
  const as = authorizationServer(settings);
  try {
    const params = oauth.validateAuthResponse(as, client(settings), callback, expectedState);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client(settings),
      clientAuth(settings),
      params,
      redirectUri,
      verifier,
      requestOptions(settings),
    );
    return tokenSet(await oauth.processAuthorizationCodeResponse(as, client(settings), response, { requireIdToken: false }));
  } catch (err) {
    refused(err);
  }
}

/** Redeems the refresh token; the identity platform rotates it (the old one stops working). */
export async function refreshTokens(settings: OAuthSettings, refreshToken: string): Promise<TokenSet> {
  const as = authorizationServer(settings);
  try {
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client(settings),
      clientAuth(settings),
      refreshToken,
      requestOptions(settings, { scope: settings.MS_SCOPES }),
    );
    return tokenSet(await oauth.processRefreshTokenResponse(as, client(settings), response), refreshToken);
  } catch (err) {
    refused(err);
  }
}
