import type { Account, Delivery, Reply, Subscription } from './account.ts';
import type { GraphCall } from './graph-call.ts';
import { messageJson } from './message-json.ts';
import { GraphError, isRecord, parseJsonBody } from './http.ts';
import { TENANT_ID } from './identity-protocol.ts';
import { guid } from './ids.ts';
import { isoSeconds, type MailboxChange } from './mailbox.ts';
import { type WebhookAnswer, callWebhook } from './webhook.ts';

/** Graph's longest subscription lifetime for Outlook messages. */
export const MAX_SUBSCRIPTION_MINUTES = 10080;
/** How long Graph waits for the validation echo. */
export const VALIDATION_TIMEOUT_MS = 10_000;
/** A notification answered later than this counts as slow (Graph expects an answer within 3 s). */
export const NOTIFICATION_SLOW_MS = 3_000;
/** A notification not answered by then counts as failed. */
export const NOTIFICATION_TIMEOUT_MS = 10_000;
const CHANGE_TYPES = ['created', 'updated', 'deleted'] as const;
const DELIVERY_LIMIT = 2000;

/**
 * Webhook subscriptions: creation with the validation handshake, renewal, deletion, expiry on the
 * mailbox's clock, and change notifications with clientState, over HTTP or through a queue that
 * a test drains itself (for a Worker that listens on no port).
 */
export class SubscriptionHub {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly deliveryWaiters = new Set<() => void>();
  private readonly closing = new AbortController();
  private closed = false;

  attach(account: Account): () => void {
    return account.mailbox.onChange((change) => this.onChange(account, change));
  }

  close() {
    this.closed = true;
    this.closing.abort();
  }

  list(call: GraphCall): Reply {
    const subs = this.live(call.account).filter((s) => s.clientId === call.token.clientId);
    return {
      status: 200,
      json: { '@odata.context': `${call.graphBase}/$metadata#subscriptions`, value: subs.map((s) => this.json(call.account, s)) },
    };
  }

  get(call: GraphCall, id: string): Reply {
    return {
      status: 200,
      json: { '@odata.context': `${call.graphBase}/$metadata#subscriptions/$entity`, ...this.json(call.account, this.find(call, id)) },
    };
  }

  async create(call: GraphCall): Promise<Reply> {
    const account = call.account;
    const input = parseJsonBody(call.body);
    if (!isRecord(input)) throw new GraphError(400, 'InvalidRequest', 'The request body must be a JSON object.');
    const allowed = new Set([
      'changeType',
      'notificationUrl',
      'lifecycleNotificationUrl',
      'resource',
      'expirationDateTime',
      'clientState',
      'latestSupportedTlsVersion',
      'includeResourceData',
    ]);
    for (const key of Object.keys(input))
      if (!key.startsWith('@odata.') && !allowed.has(key))
        throw new GraphError(400, 'InvalidRequest', `The property '${key}' does not exist on type 'microsoft.graph.subscription'.`);
    if (input.includeResourceData === true)
      throw new GraphError(
        400,
        'InvalidRequest',
        'Notifications with resource data need an encryptionCertificate, which this stand-in does not support.',
      );
    const changeTypes = parseChangeTypes(input.changeType);
    const notificationUrl = parseUrl(input.notificationUrl, 'notificationUrl');
    const lifecycleNotificationUrl =
      input.lifecycleNotificationUrl === undefined || input.lifecycleNotificationUrl === null
        ? null
        : parseUrl(input.lifecycleNotificationUrl, 'lifecycleNotificationUrl');
    if (typeof input.resource !== 'string') throw new GraphError(400, 'InvalidRequest', "The 'resource' property is required.");
    const folderId = resolveResource(account, input.resource);
    const expirationDateTime = parseExpiration(account, input.expirationDateTime);
    if (
      input.clientState !== undefined &&
      input.clientState !== null &&
      (typeof input.clientState !== 'string' || input.clientState.length > 128)
    ) {
      throw new GraphError(400, 'InvalidRequest', 'clientState must be a string of at most 128 characters.');
    }
    for (const url of [notificationUrl, lifecycleNotificationUrl]) {
      if (url === null) continue;
      const token = `Validation: Testing client application reachability for subscription Request-Id: ${guid()}`;
      const target = `${url}${url.includes('?') ? '&' : '?'}validationToken=${encodeURIComponent(token)}`;
      const answer = await callWebhook(
        account,
        'validation',
        target,
        '',
        'text/plain; charset=utf-8',
        VALIDATION_TIMEOUT_MS,
        this.closing.signal,
      );
      const echoed = answer.status === 200 && answer.body === token && answer.contentType.toLowerCase().startsWith('text/plain');
      this.record(account, { kind: 'validation', subscriptionId: null, url, answer, ok: echoed, slow: false });
      if (!echoed) {
        const why =
          answer.error !== null
            ? `Notification endpoint did not answer: ${answer.error}.`
            : answer.status !== 200
              ? `Notification endpoint must respond with 200 OK to validation request; it answered ${answer.status}.`
              : !answer.contentType.toLowerCase().startsWith('text/plain')
                ? `The validation response must have Content-Type text/plain; it had '${answer.contentType}'.`
                : 'Response must exactly match validationToken query parameter.';
        throw new GraphError(400, 'ValidationError', `Subscription validation request failed. ${why}`);
      }
    }
    const subscription: Subscription = {
      id: guid(),
      resource: input.resource,
      folderId,
      changeTypes,
      notificationUrl,
      lifecycleNotificationUrl,
      expirationDateTime,
      clientState: typeof input.clientState === 'string' ? input.clientState : null,
      clientId: call.token.clientId,
      immutableIds: call.immutableIds,
      latestSupportedTlsVersion: typeof input.latestSupportedTlsVersion === 'string' ? input.latestSupportedTlsVersion : 'v1_2',
    };
    account.subscriptions.set(subscription.id, subscription);
    return {
      status: 201,
      json: { '@odata.context': `${call.graphBase}/$metadata#subscriptions/$entity`, ...this.json(account, subscription) },
    };
  }

  update(call: GraphCall, id: string): Reply {
    const subscription = this.find(call, id);
    const input = parseJsonBody(call.body);
    if (!isRecord(input)) throw new GraphError(400, 'InvalidRequest', 'The request body must be a JSON object.');
    for (const key of Object.keys(input)) {
      if (key !== 'expirationDateTime')
        throw new GraphError(400, 'InvalidRequest', `Only expirationDateTime can be updated by this stand-in; '${key}' cannot.`);
    }
    subscription.expirationDateTime = parseExpiration(call.account, input.expirationDateTime);
    return {
      status: 200,
      json: { '@odata.context': `${call.graphBase}/$metadata#subscriptions/$entity`, ...this.json(call.account, subscription) },
    };
  }

  remove(call: GraphCall, id: string): Reply {
    const subscription = this.find(call, id);
    call.account.subscriptions.delete(subscription.id);
    return { status: 204 };
  }

  /** Subscriptions still alive on the mailbox's clock (expired ones are gone, as in Graph). */
  live(account: Account): Subscription[] {
    const now = account.mailbox.now();
    for (const [id, s] of account.subscriptions) if (Date.parse(s.expirationDateTime) <= now) account.subscriptions.delete(id);
    return [...account.subscriptions.values()];
  }

  json(account: Account, s: Subscription): Record<string, unknown> {
    return {
      id: s.id,
      resource: s.resource,
      applicationId: s.clientId,
      changeType: s.changeTypes.join(','),
      clientState: s.clientState,
      notificationUrl: s.notificationUrl,
      notificationQueryOptions: null,
      lifecycleNotificationUrl: s.lifecycleNotificationUrl,
      expirationDateTime: s.expirationDateTime,
      creatorId: account.mailbox.user.id,
      includeResourceData: null,
      latestSupportedTlsVersion: s.latestSupportedTlsVersion,
      encryptionCertificate: null,
      encryptionCertificateId: null,
      notificationUrlAppId: null,
    };
  }

  private find(call: GraphCall, id: string): Subscription {
    const subscription = this.live(call.account).find((s) => s.id === id && s.clientId === call.token.clientId);
    if (!subscription) throw new GraphError(404, 'ResourceNotFound', `The object was not found: subscription '${id}'.`);
    return subscription;
  }

  // ------------------------------------------------------------------ notifications

  private onChange(account: Account, change: MailboxChange) {
    if (this.closed) return;
    for (const s of this.live(account)) {
      let changeType = change.changeType;
      if (s.folderId === null) {
        // The whole mailbox sees a move as one update, not a delete and a create.
        if (change.move && change.changeType === 'deleted') continue;
        if (change.move) changeType = 'updated';
      } else if (s.folderId !== change.folderId) {
        continue;
      }
      if (!s.changeTypes.includes(changeType)) continue;
      const id = s.immutableIds ? change.message.immutableId : change.restId;
      const user = account.mailbox.user.id;
      const etag = messageJson({ immutableIds: s.immutableIds, bodyType: null }, change.message)['@odata.etag'];
      const payload = {
        value: [
          {
            subscriptionId: s.id,
            subscriptionExpirationDateTime: s.expirationDateTime,
            changeType,
            resource: `Users/${user}/Messages/${id}`,
            resourceData: {
              '@odata.type': '#Microsoft.Graph.Message',
              '@odata.id': `Users/${user}/Messages/${id}`,
              '@odata.etag': etag,
              id,
            },
            clientState: s.clientState,
            tenantId: TENANT_ID,
          },
        ],
      };
      const task = callWebhook(
        account,
        'notification',
        s.notificationUrl,
        JSON.stringify(payload),
        'application/json; charset=utf-8',
        NOTIFICATION_TIMEOUT_MS,
        this.closing.signal,
      ).then((answer) => {
        const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
        this.record(account, {
          kind: 'notification',
          subscriptionId: s.id,
          url: s.notificationUrl,
          answer,
          ok,
          slow: answer.durationMs > NOTIFICATION_SLOW_MS,
          changes: [{ changeType, id }],
        });
      });
      this.pending.add(task);
      void task.finally(() => this.pending.delete(task));
    }
  }

  /** Resolves once `count` deliveries are recorded for the account (or the wait ends). */
  async waitForDeliveries(account: Account, count: number, waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    while (account.deliveries.length < count && Date.now() < deadline && !this.closed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(1, deadline - Date.now()));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.deliveryWaiters.add(done);
      });
    }
  }

  private record(
    account: Account,
    d: {
      kind: Delivery['kind'];
      subscriptionId: string | null;
      url: string;
      answer: WebhookAnswer;
      ok: boolean;
      slow: boolean;
      changes?: Delivery['changes'];
    },
  ) {
    account.deliveries.push({
      time: isoSeconds(account.mailbox.now()),
      kind: d.kind,
      subscriptionId: d.subscriptionId,
      url: d.url,
      status: d.answer.status,
      durationMs: d.answer.durationMs,
      ok: d.ok && !d.slow,
      slow: d.slow,
      error: d.answer.error,
      ...(d.changes ? { changes: d.changes } : {}),
    });
    if (account.deliveries.length > DELIVERY_LIMIT) account.deliveries.splice(0, account.deliveries.length - DELIVERY_LIMIT);
    for (const wake of [...this.deliveryWaiters]) {
      this.deliveryWaiters.delete(wake);
      wake();
    }
  }

  /** Waits for notifications still in flight (for a clean close). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}

function parseChangeTypes(value: unknown): Subscription['changeTypes'] {
  if (typeof value !== 'string' || !value.trim()) throw new GraphError(400, 'InvalidRequest', "The 'changeType' property is required.");
  const parts = value.split(',').map((s) => s.trim());
  const out: Subscription['changeTypes'] = [];
  for (const part of parts) {
    const known = CHANGE_TYPES.find((t) => t === part);
    if (!known) throw new GraphError(400, 'InvalidRequest', `'${part}' is not a valid changeType; use created, updated or deleted.`);
    if (!out.includes(known)) out.push(known);
  }
  return out;
}

function parseUrl(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value) throw new GraphError(400, 'InvalidRequest', `The '${field}' property is required.`);
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
    return value;
  } catch {
    throw new GraphError(400, 'InvalidRequest', `Invalid ${field}: '${value}' is not an absolute http(s) URL.`);
  }
}

function parseExpiration(account: Account, value: unknown): string {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw new GraphError(400, 'InvalidRequest', "The 'expirationDateTime' property must be an ISO 8601 date-time.");
  const now = account.mailbox.now();
  if (ms <= now) throw new GraphError(400, 'InvalidRequest', 'Subscription expiration must be in the future.');
  if (ms > now + MAX_SUBSCRIPTION_MINUTES * 60_000)
    throw new GraphError(400, 'InvalidRequest', `Subscription expiration can only be ${MAX_SUBSCRIPTION_MINUTES} minutes in the future.`);
  return new Date(ms).toISOString().replace(/Z$/, '0000Z');
}

/** The folder a resource watches: `me/mailFolders('inbox')/messages`, `me/mailFolders/{id}/messages`, or `me/messages` (all). */
function resolveResource(account: Account, resource: string): string | null {
  const mailbox = account.mailbox;
  const path = resource.trim().replace(/^\//, '');
  const user = `(?:me|users/(?:${escapeRegExp(mailbox.user.id)}|${escapeRegExp(mailbox.user.userPrincipalName)}|${escapeRegExp(mailbox.user.mail)}))`;
  if (new RegExp(`^${user}/messages$`, 'i').test(path)) return null;
  const match = new RegExp(`^${user}/mailFolders(?:\\('([^']+)'\\)|/([^/]+))/messages$`, 'i').exec(path);
  const folder = match ? mailbox.resolveFolder(match[1] ?? match[2]!) : undefined;
  if (!folder) throw new GraphError(400, 'InvalidRequest', `The resource '${resource}' is not supported or was not found.`);
  return folder.id;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
