import type { Context } from 'hono';
import type { MailboxAccount } from '#durable-objects/mail-user-context.ts';
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
 * that mailbox's inbox.
 */
export async function completeConnection(c: Context<MailEnv>, tokens: TokenSet): Promise<Connected> {
  const account = await readAccount(c, tokens);
  const userId = c.var.user.id;
  await mailboxStub(c.env, userId).store(tokens, account);
  try {
    await resubscribe(c.env, c.var.config, userId, account.mail, webhookUrl(c));
    return { account };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    console.warn(JSON.stringify({ level: 'warn', service: 'mail', request_id: c.var.requestId, event: 'subscription_failed', error: message }));
    return { account, subscriptionError: message };
  }
}

/**
 * Development only (MAIL_DEV_AUTO_CONNECT with a loopback identity platform): runs the
 * authorization-code flow against the stand-in without a browser — it consents at once — so
 * every mail route works as soon as `npm run dev` is up.
 */
export async function devAutoConnect(c: Context<MailEnv>): Promise<boolean> {
  try {
    const redirect = redirectUri(c);
    const { url, verifier, state } = await startAuthorization(c.var.config, redirect);
    const consent = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5_000) });
    const location = consent.headers.get('location');
    await consent.body?.cancel();
    if (!location) return false;
    const tokens = await finishAuthorization(c.var.config, new URL(location, redirect), state, verifier, redirect);
    await completeConnection(c, tokens);
    return true;
  } catch (err) {
    console.warn(JSON.stringify({ level: 'warn', service: 'mail', event: 'dev_auto_connect_failed', error: err instanceof Error ? err.message : String(err) }));
    return false;
  }
}

/** Ends the signed-in user's connection: its subscriptions first (while the token works), then the tokens. */
export async function disconnectMailbox(c: Context<MailEnv>): Promise<void> {
  const userId = c.var.user.id;
  await unsubscribe(c.env, c.var.config, userId).catch((err) =>
    console.warn(JSON.stringify({ level: 'warn', service: 'mail', request_id: c.var.requestId, event: 'unsubscribe_failed', error: err instanceof Error ? err.message : String(err) })),
  );
  await mailboxStub(c.env, userId).disconnect();
}
