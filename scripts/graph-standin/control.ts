import type { Account, Fault, Reply } from './account.ts';
import { GraphError } from './http.ts';
import type { Identity } from './identity.ts';
import { listUnsubscribe, sendElsewhere } from './unsubscribe.ts';
import type { SubscriptionHub } from './subscriptions.ts';
import { invalid, object, optionalString } from './control-input.ts';
import { deliver } from './delivery.ts';

/**
 * The control API under `/_standin/` (the stand-in's own, not Graph's). Each path works on the
 * default mailbox, or on one mailbox as `/_standin/mailboxes/{id}/…`.
 */
export type ControlContext = {
  accounts: Map<string, Account>;
  defaultAccount: Account;
  createAccount(input: { displayName?: string; mail?: string; seed?: 'racing' | 'empty' }): Account;
  resetAccount(account: Account): void;
  identity: Identity;
  hub: SubscriptionHub;
  urls: { base: string; graph: string; identity: string };
};

const MAX_DELAY_MS = 120_000;
const MAX_WAIT_MS = 30_000;
let faultCounter = 0;

export async function handleControl(
  ctx: ControlContext,
  method: string,
  segments: string[],
  query: URLSearchParams,
  body: Buffer,
  contentType: string | null = null,
): Promise<Reply> {
  // segments start after "_standin"
  if (segments.length === 0 && method === 'GET') return ok(index(ctx));
  if (segments[0] === 'mailboxes') {
    if (segments.length === 1) {
      if (method === 'GET') return ok({ value: [...ctx.accounts.values()].map((a) => describe(ctx, a)) });
      if (method === 'POST') {
        const input = object(body);
        const mail = optionalString(input, 'mail');
        if (mail !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(mail)) throw invalid('mail must be an e-mail address');
        if (mail && [...ctx.accounts.values()].some((a) => a.mailbox.user.mail.toLowerCase() === mail.toLowerCase()))
          throw new GraphError(409, 'Conflict', `a mailbox for ${mail} exists already`);
        const seed = optionalString(input, 'seed');
        if (seed !== undefined && seed !== 'racing' && seed !== 'empty') throw invalid("seed must be 'racing' or 'empty'");
        const account = ctx.createAccount({ displayName: optionalString(input, 'displayName'), mail, seed });
        return { status: 201, json: describe(ctx, account) };
      }
      throw notAllowed();
    }
    const account = ctx.accounts.get(segments[1]!);
    if (!account) throw new GraphError(404, 'NotFound', `no mailbox '${segments[1]}'`);
    if (segments.length === 2) {
      if (method === 'GET') return ok(describe(ctx, account));
      if (method === 'DELETE') {
        if (account === ctx.defaultAccount) throw invalid('the default mailbox cannot be deleted');
        account.detachMailbox();
        ctx.accounts.delete(account.key);
        return { status: 204 };
      }
      throw notAllowed();
    }
    return scoped(ctx, account, method, segments.slice(2), query, body, contentType);
  }
  return scoped(ctx, ctx.defaultAccount, method, segments, query, body, contentType);
}

async function scoped(
  ctx: ControlContext,
  account: Account,
  method: string,
  rest: string[],
  query: URLSearchParams,
  body: Buffer,
  contentType: string | null,
): Promise<Reply> {
  const [what, id] = rest;
  switch (what) {
    // a mailing list's one-click endpoint, and mail the owner sends from another client (unsubscribe.ts)
    case 'list-unsubscribe':
      return listUnsubscribe(account, method, id, body, contentType);
    case 'send-elsewhere':
      if (method !== 'POST' || id) throw notAllowed();
      return sendElsewhere(account, object(body));
    case 'reset':
      if (method !== 'POST' || id) throw notAllowed();
      ctx.resetAccount(account);
      return ok(describe(ctx, account));
    case 'state':
      if (method !== 'GET') throw notAllowed();
      return ok(describe(ctx, account));
    case 'faults':
      if (id) {
        if (method !== 'DELETE') throw notAllowed();
        const before = account.faults.length;
        account.faults = account.faults.filter((f) => String(f.id) !== id);
        if (account.faults.length === before) throw new GraphError(404, 'NotFound', `no fault ${id}`);
        return { status: 204 };
      }
      if (method === 'GET') return ok({ value: account.faults });
      if (method === 'DELETE') {
        account.faults = [];
        return { status: 204 };
      }
      if (method === 'POST') {
        const fault = parseFault(object(body));
        account.faults.push(fault);
        return { status: 201, json: fault };
      }
      throw notAllowed();
    case 'tokens': {
      if (method !== 'POST') throw notAllowed();
      if (id === 'expire') {
        ctx.identity.expireAccessTokens(account);
        return { status: 204 };
      }
      if (id === 'revoke') {
        ctx.identity.revokeTokens(account);
        return { status: 204 };
      }
      if (id) throw notFound();
      const input = object(body);
      const lifetime = input.accessTokenLifetime ?? input.expiresIn;
      if (lifetime !== undefined) {
        if (typeof lifetime !== 'number' || !Number.isInteger(lifetime) || lifetime < 1 || lifetime > 86_400)
          throw invalid('accessTokenLifetime must be whole seconds, 1 to 86400');
        account.accessTokenLifetime = lifetime;
      }
      if (input.refreshTokenReuse !== undefined) {
        if (input.refreshTokenReuse !== 'reject' && input.refreshTokenReuse !== 'allow')
          throw invalid("refreshTokenReuse must be 'reject' or 'allow'");
        account.refreshTokenReuse = input.refreshTokenReuse;
      }
      return ok({
        accessTokenLifetime: account.accessTokenLifetime,
        refreshTokenReuse: account.refreshTokenReuse,
        refreshGrants: account.refreshGrants,
      });
    }
    case 'authorize-error': {
      if (method !== 'POST') throw notAllowed();
      const input = object(body);
      const error = optionalString(input, 'error') ?? 'access_denied';
      if (!/^[a-z_]+$/.test(error)) throw invalid('error must be an OAuth error code');
      account.authorizeError = {
        error,
        description: optionalString(input, 'error_description') ?? 'AADSTS65004: User declined to consent to access the app.',
      };
      return { status: 204 };
    }
    case 'limits': {
      if (method !== 'POST') throw notAllowed();
      const input = object(body);
      const max = input.maxConcurrent;
      if (typeof max !== 'number' || !Number.isInteger(max) || max < 0 || max > 1000)
        throw invalid('maxConcurrent must be a whole number 0–1000 (0: no limit)');
      account.maxConcurrent = max;
      return ok({ maxConcurrent: account.maxConcurrent });
    }
    case 'clock': {
      if (method === 'GET') return ok(clock(account));
      if (method !== 'POST') throw notAllowed();
      const input = object(body);
      if (input.offsetMs !== undefined) {
        if (typeof input.offsetMs !== 'number' || !Number.isFinite(input.offsetMs)) throw invalid('offsetMs must be a number');
        account.mailbox.clockOffsetMs = Math.round(input.offsetMs);
      }
      if (input.advanceMs !== undefined) {
        if (typeof input.advanceMs !== 'number' || !Number.isFinite(input.advanceMs)) throw invalid('advanceMs must be a number');
        account.mailbox.clockOffsetMs += Math.round(input.advanceMs);
      }
      if (input.now !== undefined) {
        const at = typeof input.now === 'string' ? Date.parse(input.now) : NaN;
        if (Number.isNaN(at)) throw invalid('now must be an ISO date-time');
        account.mailbox.clockOffsetMs = at - Date.now();
      }
      return ok(clock(account));
    }
    case 'deliver': {
      if (method !== 'POST') throw notAllowed();
      return deliver(account, object(body));
    }
    case 'log': {
      if (method === 'DELETE') {
        account.log = [];
        account.inFlight.highWater = account.inFlight.current;
        for (const [key, t] of account.inFlight.byToken) {
          if (t.current === 0) account.inFlight.byToken.delete(key);
          else t.highWater = t.current;
        }
        return { status: 204 };
      }
      if (method !== 'GET') throw notAllowed();
      return ok({
        requests: account.log,
        inFlight: account.inFlight.current,
        highWater: account.inFlight.highWater,
        highWaterByToken: Object.fromEntries([...account.inFlight.byToken].map(([k, v]) => [k, v.highWater])),
        refreshGrants: account.refreshGrants,
      });
    }
    case 'deliveries': {
      if (method === 'DELETE') {
        account.deliveries = [];
        return { status: 204 };
      }
      if (method !== 'GET') throw notAllowed();
      const count = query.get('count');
      const wait = query.get('wait');
      if (count !== null || wait !== null) {
        const n = Number(count ?? '1');
        const ms = Math.min(Number(wait ?? '5000'), MAX_WAIT_MS);
        if (!Number.isInteger(n) || n < 0 || !Number.isFinite(ms) || ms < 0) throw invalid('count and wait must be whole numbers');
        await ctx.hub.waitForDeliveries(account, n, ms);
      }
      return ok({ value: account.deliveries });
    }
    case 'subscriptions':
      if (method !== 'GET') throw notAllowed();
      return ok({ value: ctx.hub.live(account).map((s) => ctx.hub.json(account, s)) });
    case 'html': {
      if (method === 'GET') return ok({ rewrite: account.mailbox.rewriteHtml });
      if (method !== 'POST') throw notAllowed();
      const rewrite = object(body).rewrite;
      if (typeof rewrite !== 'boolean') throw invalid('rewrite must be true or false');
      account.mailbox.rewriteHtml = rewrite;
      return ok({ rewrite });
    }
    case 'webhook-mode': {
      if (method !== 'POST') throw notAllowed();
      const mode = object(body).mode;
      if (mode !== 'http' && mode !== 'queue') throw invalid("mode must be 'http' or 'queue'");
      account.webhookMode = mode;
      return ok({ mode });
    }
    case 'outbox': {
      if (!id) {
        if (method !== 'GET') throw notAllowed();
        const wait = Math.min(Number(query.get('wait') ?? '0'), MAX_WAIT_MS);
        if (!Number.isFinite(wait) || wait < 0) throw invalid('wait must be milliseconds');
        if (account.outbox.length === 0 && wait > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, wait);
            function done() {
              clearTimeout(timer);
              account.outboxWaiters.delete(done);
              resolve();
            }
            account.outboxWaiters.add(done);
          });
        }
        return ok({ value: account.outbox.map(({ resolve: _r, ...item }) => item) });
      }
      if (method !== 'POST') throw notAllowed();
      const i = account.outbox.findIndex((item) => item.id === id);
      if (i < 0) throw new GraphError(404, 'NotFound', `no pending webhook call ${id} (answered already, or timed out)`);
      const input = object(body);
      if (typeof input.status !== 'number' || !Number.isInteger(input.status)) throw invalid('status must be the webhook response status');
      const [item] = account.outbox.splice(i, 1);
      item!.resolve({
        status: input.status,
        contentType: optionalString(input, 'contentType') ?? '',
        body: optionalString(input, 'body') ?? '',
      });
      return { status: 204 };
    }
    default:
      throw notFound();
  }
}

function parseFault(input: Record<string, unknown>): Fault {
  const status = input.status ?? null;
  if (status !== null && (typeof status !== 'number' || !Number.isInteger(status) || (status !== 0 && (status < 200 || status > 599)))) {
    throw invalid('status must be an HTTP status 200–599, or 0 to drop the connection');
  }
  const count = input.count ?? null;
  if (count !== null && (typeof count !== 'number' || !Number.isInteger(count) || count < 1))
    throw invalid('count must be a positive whole number (omit it for a lasting outage)');
  const retryAfter = input.retryAfter ?? null;
  if (retryAfter !== null && (typeof retryAfter !== 'number' || !Number.isInteger(retryAfter) || retryAfter < 0 || retryAfter > 3600))
    throw invalid('retryAfter must be whole seconds 0–3600');
  const delayMs = input.delayMs ?? 0;
  if (typeof delayMs !== 'number' || !Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS)
    throw invalid(`delayMs must be 0–${MAX_DELAY_MS}`);
  if (status === null && delayMs === 0) throw invalid('a fault needs a status, a delayMs, or both');
  const pathPrefix = optionalString(input, 'pathPrefix') ?? null;
  const method = optionalString(input, 'method')?.toUpperCase() ?? null;
  faultCounter += 1;
  return { id: faultCounter, status, remaining: count, retryAfter, pathPrefix, method, delayMs, hits: 0 };
}

function describe(ctx: ControlContext, account: Account) {
  const scope = account === ctx.defaultAccount ? `${ctx.urls.base}/_standin` : `${ctx.urls.base}/_standin/mailboxes/${account.key}`;
  return {
    id: account.key,
    user: account.mailbox.user,
    loginHint: account.mailbox.user.userPrincipalName,
    seed: account.seed,
    control: scope,
    messages: account.mailbox.messages.size,
    folders: account.mailbox.folders.size,
    subscriptions: ctx.hub.live(account).length,
    faults: account.faults.length,
    webhookMode: account.webhookMode,
    accessTokenLifetime: account.accessTokenLifetime,
    refreshTokenReuse: account.refreshTokenReuse,
    maxConcurrent: account.maxConcurrent,
    refreshGrants: account.refreshGrants,
    clock: clock(account),
  };
}

function clock(account: Account) {
  return { offsetMs: account.mailbox.clockOffsetMs, now: new Date(account.mailbox.now()).toISOString() };
}

function index(ctx: ControlContext) {
  return {
    graphBaseUrl: ctx.urls.graph,
    identityBaseUrl: ctx.urls.identity,
    defaultMailbox: ctx.defaultAccount.key,
    control: [
      'POST /_standin/mailboxes {displayName?, mail?, seed?}',
      'POST [scope]/reset',
      'GET|POST|DELETE [scope]/faults {status?, count?, retryAfter?, pathPrefix?, method?, delayMs?}',
      'POST [scope]/tokens {accessTokenLifetime?, refreshTokenReuse?}',
      'POST [scope]/tokens/expire, [scope]/tokens/revoke',
      'POST [scope]/authorize-error {error?, error_description?}',
      'POST [scope]/limits {maxConcurrent}',
      'GET|POST [scope]/clock {offsetMs? | advanceMs? | now?}',
      'POST [scope]/deliver {count?, subject?, body?, html?, from?, cc?, folder?, inReplyTo?, attachment?, attachments?[{name, contentType?, contentBytes, contentId?, isInline?}], headers?[{name, value}]}',
      'POST [scope]/send-elsewhere {inReplyTo?, to?, subject?, body?}',
      'GET|POST|DELETE [scope]/list-unsubscribe[/{token}]',
      'GET|DELETE [scope]/log',
      'GET|DELETE [scope]/deliveries [?count=&wait=]',
      'GET [scope]/subscriptions',
      'POST [scope]/webhook-mode {mode: http|queue}',
      'GET [scope]/outbox[?wait=ms], POST [scope]/outbox/{id} {status, contentType?, body?}',
    ],
    scope: '/_standin (default mailbox) or /_standin/mailboxes/{id}',
  };
}

function ok(json: unknown): Reply {
  return { status: 200, json };
}

function notFound(): GraphError {
  return new GraphError(404, 'NotFound', 'no such control endpoint (GET /_standin lists them)');
}

function notAllowed(): GraphError {
  return new GraphError(405, 'MethodNotAllowed', 'method not allowed on this control endpoint');
}
