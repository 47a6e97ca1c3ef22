import { DurableObject } from 'cloudflare:workers';
import {
  type GraphRequest,
  type GraphResult,
  MAX_BACKGROUND_GRAPH_REQUESTS,
  MAX_CONCURRENT_GRAPH_REQUESTS,
  type MailConfig,
  type MailboxAccount,
  type MailboxHost,
  type MailboxNotification,
  type MailboxStatus,
  MailboxWork,
  type QueueState,
  ReadActivity,
  Semaphore,
  SharedReads,
  type StoredConnection,
  type TokenSet,
  accessStillValid,
  lookUpWellKnownFolders,
  mailConfig,
  newConnection,
  refreshedConnection,
  sendGraph,
  statusOf,
} from '#mail/mailbox/index.ts';

/**
 * One back-office user's mailbox connection ("user context", named after the user's id): its access
 * token and its refresh token (sealed with MAIL_TOKEN_SECRET), refreshed by one caller at a time —
 * concurrent callers wait for the same refresh, so a rotating refresh token is never redeemed twice —
 * and every Graph request of the mailbox, so that at most four are in flight whichever isolate asked.
 * The assistant's work for the mailbox (workers/mail/src/mailbox/) runs from its alarm.
 */
export class MailUserContext extends DurableObject<Env> {
  private refreshing: Promise<string | undefined> | undefined;
  private readonly slots = new Semaphore(MAX_CONCURRENT_GRAPH_REQUESTS, MAX_BACKGROUND_GRAPH_REQUESTS);
  /** Identical reads in flight share one call; a short-lived cache, dropped by writes and notifications. */
  private readonly reads = new SharedReads();
  /** The person's reads (not the background work's): background work waits for a quiet moment between messages. */
  private readonly readActivity = new ReadActivity();
  private wellKnownLoading: Promise<Record<string, string>> | undefined;
  private readonly work: MailboxWork;
  #config: MailConfig | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.work = new MailboxWork(ctx.storage.sql);
  }

  /** The object's settings, parsed once for its lifetime (its env does not change while it lives). */
  private get config(): MailConfig {
    this.#config ??= mailConfig(this.env);
    return this.#config;
  }

  private get host(): MailboxHost {
    return {
      env: this.env,
      config: this.config,
      transport: this,
      ownAddress: async () => (await this.status()).account?.mail,
      readsQuiet: () => this.readActivity.quiet(),
    };
  }

  /** Stores a new connection (replacing any earlier one). */
  async store(tokens: TokenSet, account: MailboxAccount): Promise<void> {
    const stored = await newConnection(this.config, this.ctx.id.toString(), tokens, account);
    this.forgetConnection();
    await this.ctx.storage.delete('wellKnownFolders');
    await this.ctx.storage.put('connection', stored);
  }

  async status(): Promise<MailboxStatus> {
    return statusOf(await this.ctx.storage.get<StoredConnection>('connection'));
  }

  async disconnect(): Promise<void> {
    this.forgetConnection();
    await this.ctx.storage.delete(['connection', 'wellKnownFolders']);
    this.work.disconnected();
  }

  private forgetConnection(): void {
    this.reads.invalidate();
    this.refreshing = undefined;
    this.wellKnownLoading = undefined;
  }

  /** Records notifications the webhook accepted; with the user's id, new mail is queued for the assistant and the alarm drains it. */
  async notified(items: MailboxNotification[], userId?: number): Promise<void> {
    if (items.length) this.reads.invalidate();
    if (this.work.notified(items, userId) && userId !== undefined) {
      await this.ctx.storage.put('userId', userId);
      await this.wake();
    }
  }

  /** Starts "apply the rules to existing mail" over these messages (the job's D1 row made by the caller). */
  async startApplyRules(userId: number, jobId: string, messageIds: string[]): Promise<void> {
    this.work.startApplyRules(userId, jobId, messageIds);
    await this.wake();
  }

  /** Starts a background job (re-categorisation) of the user's stored e-mails. */
  async startJob(userId: number, jobId: string): Promise<void> {
    this.work.startJob(userId, jobId);
    await this.wake();
  }

  /** Starts archiving a sender's Inbox mail (an "unsubscribe and archive" job). */
  async startSenderJob(userId: number, jobId: string, sender: string): Promise<void> {
    this.work.startSenderJob(userId, jobId, sender);
    await this.wake();
  }

  /** The assistant's queue of new mail: counts and the average timings of the processed messages. */
  async queueState(): Promise<QueueState> {
    return this.work.queueState();
  }

  /** The newest notifications of this mailbox, oldest first. */
  async notifications(limit = 100): Promise<MailboxNotification[]> {
    return this.work.notifications.newest(limit);
  }

  private async wake(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
  }

  /** Runs the mailbox's due work, and the alarm again while work remains. */
  override async alarm(): Promise<void> {
    const host = this.host;
    const next = await this.work.drain(host, await this.ctx.storage.get<number>('userId'));
    if (next !== null) await this.ctx.storage.setAlarm(next);
    const due = await this.work.applyRules(host);
    const alarm = await this.ctx.storage.getAlarm();
    if (due !== null && (alarm === null || due < alarm)) await this.ctx.storage.setAlarm(Math.max(Date.now(), due));
  }

  /** The ids of the well-known folders (inbox, sentitems, drafts, …), read once per connection. */
  async wellKnownFolders(): Promise<Record<string, string>> {
    const cached = await this.ctx.storage.get<Record<string, string>>('wellKnownFolders');
    if (cached) return cached;
    // the first requests after connecting ask at once (folders, list, message): one look-up for all
    this.wellKnownLoading ??= lookUpWellKnownFolders((request) => this.graph(request))
      .then(async ({ found, complete }) => {
        if (complete) await this.ctx.storage.put('wellKnownFolders', found);
        return found;
      })
      .finally(() => {
        this.wellKnownLoading = undefined;
      });
    return this.wellKnownLoading;
  }

  /** One Graph request with the mailbox's token (see sendGraph), its reads shared (see SharedReads). */
  async graph(request: GraphRequest): Promise<GraphResult> {
    const settings = this.config;
    const send = () =>
      this.reads.send(request, (r) => sendGraph(r, { settings, slots: this.slots, token: (renew) => this.accessToken(renew) }));
    return request.priority === 'background' ? send() : this.readActivity.around(send);
  }

  /** A valid access token, refreshed first when it is (nearly) expired or `renew` is asked; undefined when not connected. */
  async accessToken(renew = false): Promise<string | undefined> {
    const stored = await this.ctx.storage.get<StoredConnection>('connection');
    if (!stored) return undefined;
    if (!renew && accessStillValid(stored)) return stored.accessToken;
    this.refreshing ??= this.refresh(stored).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refresh(stored: StoredConnection): Promise<string | undefined> {
    const next = await refreshedConnection(this.config, this.ctx.id.toString(), stored);
    if (!next) {
      // revoked, expired or reused: the mailbox must be connected again
      await this.disconnect();
      return undefined;
    }
    await this.ctx.storage.put('connection', next);
    return next.accessToken;
  }
}
