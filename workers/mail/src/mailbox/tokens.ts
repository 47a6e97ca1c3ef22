import type { MailConfig } from '../config.ts';
import { GrantRefused, type TokenSet, refreshTokens } from '../oauth.ts';
import { open, seal } from '../sealing.ts';

/** The mailbox owner as Graph's /me describes them. */
export interface MailboxAccount {
  id: string;
  displayName: string;
  mail: string;
}

export interface MailboxStatus {
  connected: boolean;
  account?: MailboxAccount;
  connectedAt?: number;
  /** Unix ms the current access token stops working. */
  accessExpiresAt?: number;
  refreshes?: number;
}

/** A mailbox connection as its object stores it (key `connection`): the refresh token sealed with MAIL_TOKEN_SECRET. */
export interface StoredConnection {
  account: MailboxAccount;
  accessToken: string;
  accessExpiresAt: number;
  lifetime: number;
  refreshSealed: string;
  connectedAt: number;
  refreshes: number;
}

const REFRESH_PURPOSE = 'refresh-token';

/** A new connection to store, its refresh token sealed for this object (`objectId`) only. */
export async function newConnection(
  config: MailConfig,
  objectId: string,
  tokens: TokenSet,
  account: MailboxAccount,
): Promise<StoredConnection> {
  return {
    account,
    accessToken: tokens.accessToken,
    accessExpiresAt: tokens.expiresAt,
    lifetime: tokens.lifetime,
    refreshSealed: await seal(config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, objectId, tokens.refreshToken),
    connectedAt: Date.now(),
    refreshes: 0,
  };
}

export function statusOf(stored: StoredConnection | undefined): MailboxStatus {
  if (!stored) return { connected: false };
  return {
    connected: true,
    account: stored.account,
    connectedAt: stored.connectedAt,
    accessExpiresAt: stored.accessExpiresAt,
    refreshes: stored.refreshes,
  };
}

/** Whether the stored access token is still good: refreshed a little before expiry (a minute, or a quarter of a short lifetime). */
export function accessStillValid(stored: StoredConnection, now = Date.now()): boolean {
  const margin = Math.min(60_000, (stored.lifetime * 1000) / 4);
  return now < stored.accessExpiresAt - margin;
}

/**
 * The connection after redeeming its refresh token at the identity platform; null when the
 * mailbox must be connected again (the sealed token no longer opens, or the grant was revoked,
 * expired or reused). Other failures (the platform unreachable) are thrown.
 */
export async function refreshedConnection(
  config: MailConfig,
  objectId: string,
  stored: StoredConnection,
): Promise<StoredConnection | null> {
  const refreshToken = await open(config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, objectId, stored.refreshSealed);
  if (!refreshToken) return null;
  let tokens: TokenSet;
  try {
    tokens = await refreshTokens(config, refreshToken);
  } catch (err) {
    if (err instanceof GrantRefused) {
      console.warn(JSON.stringify({ level: 'warn', service: 'mail', event: 'mailbox_refresh_refused', error: err.message }));
      return null;
    }
    throw err;
  }
  return {
    ...stored,
    accessToken: tokens.accessToken,
    accessExpiresAt: tokens.expiresAt,
    lifetime: tokens.lifetime,
    refreshSealed: await seal(config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, objectId, tokens.refreshToken),
    refreshes: stored.refreshes + 1,
  };
}
