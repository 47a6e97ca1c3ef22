import type { MiddlewareHandler } from 'hono';
import { limitBody as limitSharedBody, refuseTooLarge } from '#shared/body.ts';
import { commaList } from '#shared/config.ts';
import { basePath } from '#shared/base-path.ts';
import { HttpError } from '#shared/http-error.ts';
import { type AntiForgeryOptions, antiForgery, forbiddenOrigin } from '#shared/anti-forgery.ts';
import { defineGuard } from '#shared/guard.ts';
import { isLoopback } from './config.ts';
import { devAutoConnect } from './connection.ts';
import { type MailEnv, mailboxStub } from './context.ts';
import { GraphClient } from './graph/client.ts';
import { CSRF_PURPOSE, readSession } from './session.ts';

/**
 * The guards a route names in its own definition (never a list of paths elsewhere), declared
 * through workers/shared/guard.ts. Each route names one access guard (`anonymous` from there, or
 * `apiSession` / `pageSession`: access 'session'); the other guards add to it (anti-forgery, a
 * connected mailbox, the assistant's accounts). The route test walks `app.routes` and checks
 * each route carries the ones its gate needs.
 */

/** Who may call a mail route: anyone, or a signed-in account (the session cookie). */
export type MailAccess = 'session';
const session = { access: 'session', browserSession: true } as const;

/** Gate "login" for JSON routes: 401 JSON without a live session. */
export const apiSession = defineGuard<MailEnv, MailAccess>(session, async (c, next) => {
  const session = await readSession(c);
  if (!session) throw new HttpError(401, 'unauthenticated', `Sign in first at ${basePath(c)}/login.`);
  c.set('user', session.user);
  c.set('csrfToken', session.csrfToken);
  c.set('sessionIdHash', session.idHash);
  await next();
});

/** Gate "login" for pages: to the login form (and back here after it) without a live session. */
export const pageSession = defineGuard<MailEnv, MailAccess>(session, async (c, next) => {
  const session = await readSession(c);
  if (!session) {
    const url = new URL(c.req.url);
    return c.redirect(`/login?next=${encodeURIComponent(url.pathname + url.search)}`, 302);
  }
  c.set('user', session.user);
  c.set('csrfToken', session.csrfToken);
  c.set('sessionIdHash', session.idHash);
  await next();
});

/**
 * Anti-forgery on every state change (after a session guard), the shared mechanism
 * (workers/shared/anti-forgery.ts): the same-origin check (403 `forbidden_origin`), and the
 * session's token in the `X-CSRF-Token` header (scripts) or the `csrf_token` form field (forms)
 * (403 `csrf_failed`).
 */
const sessionAntiForgery: AntiForgeryOptions<MailEnv> = {
  token: {
    purpose: CSRF_PURPOSE,
    secret: (c) => c.var.config.SESSION_SECRET,
    binding: (c) => c.var.sessionIdHash,
    field: 'csrf_token',
    header: 'x-csrf-token',
  },
  refuse: (_c, refusal) => {
    if (refusal.kind === 'cross-site') throw forbiddenOrigin(refusal);
    throw new HttpError(403, 'csrf_failed', 'The anti-forgery token is missing or wrong: reload the page and try again.');
  },
};

export const csrf = defineGuard<MailEnv>({ antiForgery: true }, antiForgery<MailEnv>(sessionAntiForgery));

/**
 * The signed-in user's own mailbox is connected (connecting the stand-in at once in development
 * when so configured); on `c.var` for the route.
 */
async function mailboxConnected(c: Parameters<MiddlewareHandler<MailEnv>>[0]): Promise<boolean> {
  const mailbox = mailboxStub(c.env, c.var.user.id);
  c.set('mailbox', mailbox);
  c.set('graph', new GraphClient(mailbox, c.var.config.GRAPH_BASE_URL, c.var.config.GRAPH_READ_CACHE_MS));
  const status = await mailbox.status();
  if (status.connected) return true;
  const config = c.var.config;
  if (config.MAIL_DEV_AUTO_CONNECT && isLoopback(config.IDENTITY_BASE_URL)) return devAutoConnect(c);
  return false;
}

/** Gate "token" for JSON routes: 401 JSON when no mailbox is connected. */
export const apiMailbox = defineGuard<MailEnv>({ requires: 'mailbox' }, async (c, next) => {
  if (!(await mailboxConnected(c)))
    throw new HttpError(401, 'mailbox_not_connected', `No mailbox is connected: connect it at ${basePath(c)}/connect.`);
  await next();
});

/** Gate "token" for pages: to the connect page when no mailbox is connected. */
export const pageMailbox = defineGuard<MailEnv>({ requires: 'mailbox' }, async (c, next) => {
  if (!(await mailboxConnected(c))) return c.redirect('/connect', 302);
  await next();
});

/** Bodies read through a byte cap (chunked ones included): 413 beyond it. */
export const limitBody = (maxSize: number): MiddlewareHandler<MailEnv> => limitSharedBody<MailEnv>(maxSize, refuseTooLarge(maxSize));

/** The assistant's admins (MAIL_ASSISTANT_ADMINS, comma-separated): addresses, or `@domain` for a whole domain; lower case. */
export function assistantAdmins(list: string): string[] {
  return commaList(list).map((a) => a.toLowerCase());
}

/** Whether the address is one of the assistant's admins (or in an admin domain). */
function isAssistantAdmin(admins: string, email: string): boolean {
  const address = email.trim().toLowerCase();
  return assistantAdmins(admins).some((entry) => (entry.startsWith('@') ? address.endsWith(entry) : address === entry));
}

/**
 * Gate "assistant" (after a session guard): the AI routes are for the accounts allowed to use
 * the assistant — its admins always, others when listed at /api/admin/users. 403 otherwise.
 */
export const assistant = defineGuard<MailEnv>({ requires: 'assistant' }, async (c, next) => {
  if (!(await assistantAllowed(c.env.DB, c.var.config.MAIL_ASSISTANT_ADMINS, c.var.user.email))) {
    throw new HttpError(
      403,
      'assistant_not_allowed',
      `This account may not use the assistant: ask an assistant admin to add it at ${basePath(c)}/api/admin/users.`,
    );
  }
  await next();
});

/** Whether an account may use the assistant: an admin, or listed in `ai_users`. */
async function assistantAllowed(db: D1Database, admins: string, email: string): Promise<boolean> {
  const address = email.toLowerCase();
  if (isAssistantAdmin(admins, address)) return true;
  return (await db.prepare('SELECT 1 FROM ai_users WHERE email = ?').bind(address).first()) !== null;
}

/**
 * Whether the user of that id may use the assistant, for work that runs without a session (new
 * mail from the webhook): the account's address is the newest session's, else the mailbox's.
 */
export async function userAssistantAllowed(db: D1Database, admins: string, userId: number): Promise<boolean> {
  const session = await db
    .prepare('SELECT email FROM sessions WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1')
    .bind(userId)
    .first<{ email: string }>();
  const email =
    session?.email ?? (await db.prepare('SELECT mail FROM mailboxes WHERE user_id = ?').bind(userId).first<{ mail: string }>())?.mail;
  return email !== undefined && (await assistantAllowed(db, admins, email));
}

/** Gate "assistant admin" (after a session guard): managing who may use the assistant. */
export const assistantAdmin = defineGuard<MailEnv>({ requires: 'assistant-admin' }, async (c, next) => {
  if (!isAssistantAdmin(c.var.config.MAIL_ASSISTANT_ADMINS, c.var.user.email))
    throw new HttpError(403, 'assistant_admin_only', 'Only the assistant’s admins (MAIL_ASSISTANT_ADMINS) manage its users.');
  await next();
});
