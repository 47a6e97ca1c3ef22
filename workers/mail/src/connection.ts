import type { Context } from 'hono';
import type { MailboxAccount } from './mailbox/tokens.ts';
import { isLoopback } from './config.ts';
import { type MailEnv, mailboxStub, publicBase } from './context.ts';
import { graphHttpError } from './graph/client.ts';
import { Semaphore, sendGraph } from './graph/transport.ts';
import { type TokenSet, finishAuthorization, startAuthorization } from './oauth.ts';
import { resubscribe, unsubscribe } from './subscriptions.ts';

export const CALLBACK_PATH = '/connect/callback';
export const WEBHOOK_PATH = '/graph/webhook';

export const redirectUri = (c: Context<MailEnv>) => `${publicBase(c)}${CALLBACK_PATH}`;
export const webhookUrl = (c: Context<MailEnv>) => `${publicBase(c)}${WEBHOOK_PATH}`;

/** The mailbox owner, read with the new token before it is stored. */
async function readAccount(c: Context<MailEnv>, tokens: TokenSet): Promise<MailboxAccount> {
  const result = await sendGraph(
    { method: 'GET', path: '/me?$select=id,displayName,mail,userPrincipalName' },
    { settings: c.var.config, slots: new Semaphore(1), token: async () => tokens.accessToken },
  );
  if (!result.ok) throw graphHttpError(result);
  const me = result.json as { id?: string; displayName?: string; mail?: string | null; userPrincipalName?: string };
  return { id: me.id ?? '', displayName: me.displayName ?? '', mail: me.mail ?? me.userPrincipalName ?? '' };
}

export interface Connected {
  account: MailboxAccount;
  /** Why the change-notification subscription could not be made (the connection stands). */
  subscriptionError?: string;
}

/**
 * Stores the tokens in the signed-in user's mailbox Durable Object and subscribes the webhook to
 * that mailbox's inbox (with `subscribeAfter`, after the answer: the mailbox reads at once).
 */
export async function completeConnection(
  c: Context<MailEnv>,
  tokens: TokenSet,
  options: { subscribeAfter?: boolean } = {},
): Promise<Connected> {
  const account = await readAccount(c, tokens);
  const userId = c.var.user.id;
  await mailboxStub(c.env, userId).store(tokens, account);
  const subscribe = async (): Promise<Connected> => {
    try {
      await resubscribe(c.env, c.var.config, userId, account.mail, webhookUrl(c));
      return { account };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      console.warn(
        JSON.stringify({ level: 'warn', service: 'mail', request_id: c.var.requestId, event: 'subscription_failed', error: message }),
      );
      return { account, subscriptionError: message };
    }
  };
  if (options.subscribeAfter) {
    const later = subscribe();
    try {
      c.executionCtx.waitUntil(later);
      return { account };
    } catch {
      // no execution context (a direct call): wait for it here
    }
    return later;
  }
  return subscribe();
}

/** Whether development auto-connect applies (MAIL_DEV_AUTO_CONNECT with a loopback identity platform). */
export const devAutoConnectOn = (c: Context<MailEnv>) => c.var.config.MAIL_DEV_AUTO_CONNECT && isLoopback(c.var.config.IDENTITY_BASE_URL);

/** Auto-connects under way in this isolate, by user: the first requests of a page share one. */
const connecting = new Map<number, Promise<boolean>>();

/**
 * Development only (MAIL_DEV_AUTO_CONNECT with a loopback identity platform): runs the
 * authorization-code flow against the stand-in without a browser — it consents at once — so
 * every mail route works as soon as `npm run dev` is up. Concurrent first requests of a user share
 * one flow; the inbox subscription is made after the answer.
 */
export function devAutoConnect(c: Context<MailEnv>): Promise<boolean> {
  const userId = c.var.user.id;
  let flow = connecting.get(userId);
  if (!flow) {
    flow = runDevAutoConnect(c).finally(() => connecting.delete(userId));
    connecting.set(userId, flow);
  }
  return flow;
}

async function runDevAutoConnect(c: Context<MailEnv>): Promise<boolean> {
  try {
    const redirect = redirectUri(c);
    const { url, verifier, state } = await startAuthorization(c.var.config, redirect);
    // generous: on a loaded development machine the stand-in can take seconds
    const consent = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(20_000) });
    const location = consent.headers.get('location');
    await consent.body?.cancel();
    if (!location) return false;
    const tokens = await finishAuthorization(c.var.config, new URL(location, redirect), state, verifier, redirect);
    await completeConnection(c, tokens, { subscribeAfter: true });
    return true;
  } catch (err) {
    console.warn(
      JSON.stringify({
        level: 'warn',
        service: 'mail',
        event: 'dev_auto_connect_failed',
        error: err instanceof Error ? err.message : String(err),
      }),
    );
    // another isolate may have connected it meanwhile
    return (
      await mailboxStub(c.env, c.var.user.id)
        .status()
        .catch(() => ({ connected: false }))
    ).connected;
  }
}

/**
 * Development only: the signed-in user's mailbox connected before the mail client's page is
 * served, so its first requests find it connected (a no-op unless auto-connect applies).
 */
export async function ensureDevMailbox(c: Context<MailEnv>): Promise<void> {
  if (!devAutoConnectOn(c)) return;
  if ((await mailboxStub(c.env, c.var.user.id).status()).connected) return;
  await devAutoConnect(c);
}

/** Ends the signed-in user's connection: its subscriptions first (while the token works), then the tokens. */
export async function disconnectMailbox(c: Context<MailEnv>): Promise<void> {
  const userId = c.var.user.id;
  await unsubscribe(c.env, c.var.config, userId).catch((err) =>
    console.warn(
      JSON.stringify({
        level: 'warn',
        service: 'mail',
        request_id: c.var.requestId,
        event: 'unsubscribe_failed',
        error: err instanceof Error ? err.message : String(err),
      }),
    ),
  );
  await mailboxStub(c.env, userId).disconnect();
}
