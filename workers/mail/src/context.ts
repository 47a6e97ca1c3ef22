import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import type { Context, MiddlewareHandler } from 'hono';
import * as schema from '#d1/mail/schema.ts';
import { basePath } from '#shared/base-path.ts';
import type { SessionVariables } from '#shared/session-variables.ts';
import { type MailConfig, mailConfig } from './config.ts';
import type { GraphClient } from './graph/client.ts';

/** The signed-in back-office user, as the authentication service described them at login. */
export type SessionUser = { id: number; email: string; name: string };

export type MailDb = DrizzleD1Database<typeof schema>;

export type MailEnv = {
  Bindings: Env;
  Variables: SessionVariables<MailConfig, MailDb, SessionUser> & {
    /** Hash of the session cookie (the session row's key). */
    sessionIdHash: string;
    /** Set by the mailbox guard: the signed-in user's mailbox object. */
    mailbox: MailboxStub;
    /** Set by the mailbox guard: Graph calls for the signed-in user's connected mailbox. */
    graph: GraphClient;
  };
};

export type MailContext = Context<MailEnv>;

/** Validated config and the D1 handle on `c.var`, once per request. */
export function mailServices(): MiddlewareHandler<MailEnv> {
  return async (c, next) => {
    c.set('config', mailConfig(c.env));
    c.set('db', drizzle(c.env.DB, { schema }));
    await next();
  };
}

export type MailboxStub = ReturnType<typeof mailboxStub>;

/** The mailbox of one back-office user (the authentication service's user id): one object each. */
export function mailboxStub(env: Env, userId: number) {
  return env.MAILBOX.get(env.MAILBOX.idFromName(`user:${userId}`));
}

/**
 * Where this service is reached from outside: MAIL_PUBLIC_URL, or the request's own origin, followed
 * by the path prefix the request came in under (so the identity platform and Graph call back there).
 */
export function publicBase(c: MailContext): string {
  return `${c.var.config.MAIL_PUBLIC_URL || new URL(c.req.url).origin}${basePath(c)}`;
}
