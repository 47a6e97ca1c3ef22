import { DurableObject } from 'cloudflare:workers';
import { mailConfig } from '../workers/mail/src/config';
import { WELL_KNOWN_FOLDERS } from '../workers/mail/src/graph/client';
import { type GraphRequest, type GraphResult, Semaphore, sendGraph } from '../workers/mail/src/graph/transport';
import { GrantRefused, type TokenSet, refreshTokens } from '../workers/mail/src/oauth';
import { open, seal } from '../workers/mail/src/sealing';

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

interface StoredConnection {
  account: MailboxAccount;
  accessToken: string;
  accessExpiresAt: number;
  lifetime: number;
  refreshSealed: string;
  connectedAt: number;
  refreshes: number;
}

/** A change notification for this mailbox, as the webhook accepted it. */
export interface MailboxNotification {
  subscriptionId: string;
  changeType: string;
  resource: string;
  messageId: string | null;
  receivedAt: number;
}

/** Notifications kept per mailbox (the newest). */
export const MAX_KEPT_NOTIFICATIONS = 1000;

/** Graph calls in flight at once for one mailbox (Graph throttles at 4 per app and mailbox). */
export const MAX_CONCURRENT_GRAPH_REQUESTS = 4;
const REFRESH_PURPOSE = 'refresh-token';

/**
 * One back-office user's mailbox connection ("user context", named after the user's id): its access token and its refresh token (sealed with
 * MAIL_TOKEN_SECRET), refreshed by one caller at a time — concurrent callers wait for the same
 * refresh, so a rotating refresh token is never redeemed twice — and every Graph request of the
 * mailbox, so that at most four are in flight whichever isolate asked.
 */
export class MailUserContext extends DurableObject<Env> {
  private refreshing: Promise<string | undefined> | undefined;
  private readonly slots = new Semaphore(MAX_CONCURRENT_GRAPH_REQUESTS);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS notifications (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        subscription_id TEXT NOT NULL,
        change_type TEXT NOT NULL,
        resource TEXT NOT NULL,
        message_id TEXT,
        received_at INTEGER NOT NULL
      )`,
    );
  }

  private get config() {
    return mailConfig(this.env);
  }

  /** Stores a new connection (replacing any earlier one). */
  async store(tokens: TokenSet, account: MailboxAccount): Promise<void> {
    const stored: StoredConnection = {
      account,
      accessToken: tokens.accessToken,
      accessExpiresAt: tokens.expiresAt,
      lifetime: tokens.lifetime,
      refreshSealed: await seal(this.config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, this.ctx.id.toString(), tokens.refreshToken),
      connectedAt: Date.now(),
      refreshes: 0,
    };
    this.refreshing = undefined;
    await this.ctx.storage.delete('wellKnownFolders');
    await this.ctx.storage.put('connection', stored);
  }

  async status(): Promise<MailboxStatus> {
    const stored = await this.ctx.storage.get<StoredConnection>('connection');
    if (!stored) return { connected: false };
    return { connected: true, account: stored.account, connectedAt: stored.connectedAt, accessExpiresAt: stored.accessExpiresAt, refreshes: stored.refreshes };
  }

  async disconnect(): Promise<void> {
    this.refreshing = undefined;
    await this.ctx.storage.delete(['connection', 'wellKnownFolders']);
    this.ctx.storage.sql.exec('DELETE FROM notifications');
  }

  /** Records change notifications the webhook accepted for this mailbox (the newest are kept). */
  async notified(items: MailboxNotification[]): Promise<void> {
    for (const item of items) {
      this.ctx.storage.sql.exec(
        'INSERT INTO notifications (subscription_id, change_type, resource, message_id, received_at) VALUES (?, ?, ?, ?, ?)',
        item.subscriptionId,
        item.changeType,
        item.resource,
        item.messageId,
        item.receivedAt,
      );
    }
    this.ctx.storage.sql.exec('DELETE FROM notifications WHERE id <= (SELECT MAX(id) FROM notifications) - ?', MAX_KEPT_NOTIFICATIONS);
  }

  /** The newest notifications of this mailbox, oldest first. */
  async notifications(limit = 100): Promise<MailboxNotification[]> {
    const rows = this.ctx.storage.sql
      .exec<{ subscription_id: string; change_type: string; resource: string; message_id: string | null; received_at: number }>(
        'SELECT subscription_id, change_type, resource, message_id, received_at FROM notifications ORDER BY id DESC LIMIT ?',
        Math.max(1, Math.min(limit, MAX_KEPT_NOTIFICATIONS)),
      )
      .toArray();
    return rows.reverse().map((r) => ({ subscriptionId: r.subscription_id, changeType: r.change_type, resource: r.resource, messageId: r.message_id, receivedAt: r.received_at }));
  }

  /**
   * The ids of the well-known folders (inbox, sentitems, drafts, …), read once per connection:
   * they tell in which of them a message lies. A folder the mailbox lacks is left out.
   */
  async wellKnownFolders(): Promise<Record<string, string>> {
    const cached = await this.ctx.storage.get<Record<string, string>>('wellKnownFolders');
    if (cached) return cached;
    const found: Record<string, string> = {};
    let complete = true;
    await Promise.all(
      WELL_KNOWN_FOLDERS.map(async (name) => {
        const result = await this.graph({ method: 'GET', path: `/me/mailFolders/${name}?$select=id` });
        const id = result.ok ? (result.json as { id?: unknown } | undefined)?.id : undefined;
        if (typeof id === 'string') found[name] = id;
        else if (!result.ok && result.status !== 404) complete = false;
      }),
    );
    if (complete) await this.ctx.storage.put('wellKnownFolders', found);
    return found;
  }

  /** One Graph request with the mailbox's token (see sendGraph). */
  async graph(request: GraphRequest): Promise<GraphResult> {
    return sendGraph(request, { settings: this.config, slots: this.slots, token: (renew) => this.accessToken(renew) });
  }

  /** A valid access token, refreshed first when it is (nearly) expired or `renew` is asked; undefined when not connected. */
  async accessToken(renew = false): Promise<string | undefined> {
    const stored = await this.ctx.storage.get<StoredConnection>('connection');
    if (!stored) return undefined;
    // Refresh a little before expiry: a minute, or a quarter of a short lifetime.
    const margin = Math.min(60_000, (stored.lifetime * 1000) / 4);
    if (!renew && Date.now() < stored.accessExpiresAt - margin) return stored.accessToken;
    this.refreshing ??= this.refresh(stored).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refresh(stored: StoredConnection): Promise<string | undefined> {
    const config = this.config;
    const refreshToken = await open(config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, this.ctx.id.toString(), stored.refreshSealed);
    if (!refreshToken) {
      await this.disconnect();
      return undefined;
    }
    let tokens: TokenSet;
    try {
      tokens = await refreshTokens(config, refreshToken);
    } catch (err) {
      if (err instanceof GrantRefused) {
        // Revoked, expired or reused: the mailbox must be connected again.
        console.warn(JSON.stringify({ level: 'warn', service: 'mail', event: 'mailbox_refresh_refused', error: err.message }));
        await this.disconnect();
        return undefined;
      }
      throw err;
    }
    const next: StoredConnection = {
      ...stored,
      accessToken: tokens.accessToken,
      accessExpiresAt: tokens.expiresAt,
      lifetime: tokens.lifetime,
      refreshSealed: await seal(config.MAIL_TOKEN_SECRET, REFRESH_PURPOSE, this.ctx.id.toString(), tokens.refreshToken),
      refreshes: stored.refreshes + 1,
    };
    await this.ctx.storage.put('connection', next);
    return tokens.accessToken;
  }
}
