import { env, exports } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { sessions } from '#d1/mail/schema.ts';
import { randomBytes, sha256Hex, toBase64Url } from '#shared/crypto.ts';
import { mailboxStub } from '../../workers/mail/src/context';
import { csrfTokenFor } from '../../workers/mail/src/session';
import { freshCodes } from '../support/totp';
import type { TestAccountName } from './accounts';

export const BASE = 'https://mail.test';
export const STANDIN = env.GRAPH_STANDIN;

type Init = RequestInit & { cookie?: string; json?: unknown; csrf?: string; form?: Record<string, string> };

/** A request to the mail Worker as a browser on its own origin would send it. */
export function send(path: string, init: Init = {}): Promise<Response> {
  const { cookie, json, csrf, form, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (cookie) headers.set('cookie', cookie);
  if (csrf) headers.set('x-csrf-token', csrf);
  let body = rest.body;
  if (json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(json);
  }
  if (form !== undefined) {
    headers.set('content-type', 'application/x-www-form-urlencoded');
    body = new URLSearchParams(form).toString();
  }
  const url = path.startsWith('http') ? path : `${BASE}${path}`;
  return exports.default.fetch(new Request(url, { redirect: 'manual', ...rest, headers, body }));
}

export interface TestSession {
  cookie: string;
  csrf: string;
  email: string;
  /** The auth service's user id the session is of: whose mailbox it reaches. */
  userId: number;
  idHash: string;
}

/** A user id no other session of this file has (unless one is given). */
export const newUserId = () => 1_000_000 + (new Uint32Array(randomBytes(4).buffer)[0]! % 1_000_000_000);

/**
 * A signed-in session stored the way a sign-in stores it (no round trip to the auth service: it
 * was confirmed just now, so no recheck falls due during a test). A user of its own unless `userId`.
 */
export async function directSession(email: string, options: { expiresAt?: number; userId?: number } = {}): Promise<TestSession> {
  const id = toBase64Url(randomBytes(32));
  const idHash = await sha256Hex(id);
  const now = Date.now();
  const userId = options.userId ?? newUserId();
  await drizzle(env.DB)
    .insert(sessions)
    .values({
      idHash,
      userId,
      email,
      name: 'Test User',
      refreshTokenSealed: 'v1.none.none',
      createdAt: now,
      expiresAt: options.expiresAt ?? now + 3_600_000,
      checkedAt: now,
    });
  return { cookie: `mail_session=${id}`, csrf: await csrfTokenFor(env.SESSION_SECRET, idHash), email, userId, idHash };
}

// ---- the stand-in ------------------------------------------------------------------------

export interface StandinMailbox {
  id: string;
  mail: string;
  /** Control API of this mailbox: `${STANDIN}/_standin/mailboxes/{id}` */
  control: string;
}

export async function control<T = unknown>(mailbox: StandinMailbox, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${mailbox.control}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`stand-in ${method} ${path}: ${res.status} ${await res.text()}`);
  return (res.status === 204 ? undefined : await res.json()) as T;
}

/**
 * A seeded racing mailbox of this test file's own at the stand-in (the identity platform picks it
 * by the login hint, which is the signed-in user's e-mail). Its webhook calls are queued, and
 * `pumpWebhooks` hands them to this Worker.
 */
export async function newMailbox(name: string, seed: 'racing' | 'empty' = 'racing'): Promise<StandinMailbox> {
  const mail = `${name}-${toBase64Url(randomBytes(6))
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')}@racing.test`;
  const res = await fetch(`${STANDIN}/_standin/mailboxes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mail, seed, displayName: `Test ${name}` }),
  });
  if (res.status !== 201) throw new Error(`stand-in mailbox: ${res.status} ${await res.text()}`);
  const created = (await res.json()) as { id: string; control: string };
  const mailbox = { id: created.id, mail, control: created.control };
  await control(mailbox, 'POST', '/webhook-mode', { mode: 'queue' });
  return mailbox;
}

interface OutboxItem {
  id: string;
  kind: string;
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** Answers of the Worker to the webhook calls handed to it, in order. */
export interface Pump {
  answers: { kind: string; url: string; status: number; body: string; contentType: string }[];
  stop(): Promise<void>;
}

/** Hands the stand-in's queued webhook calls to this Worker and its answers back, until stopped. */
export function pumpWebhooks(mailbox: StandinMailbox): Pump {
  let running = true;
  const answers: Pump['answers'] = [];
  const loop = (async () => {
    while (running) {
      const { value } = await control<{ value: OutboxItem[] }>(mailbox, 'GET', '/outbox?wait=100');
      for (const item of value) {
        const res = await send(item.url, { method: item.method, headers: item.headers, body: item.body });
        const body = await res.text();
        const contentType = res.headers.get('content-type') ?? '';
        answers.push({ kind: item.kind, url: item.url, status: res.status, body, contentType });
        await control(mailbox, 'POST', `/outbox/${item.id}`, { status: res.status, contentType, body }).catch(() => undefined);
      }
    }
  })();
  return {
    answers,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/**
 * The connect flow as a browser runs it: POST /connect, the stand-in's consent, the callback
 * (under the service's path prefix when one is given).
 */
export async function connectMailbox(session: TestSession, mailbox: StandinMailbox, prefix = ''): Promise<Response> {
  if (session.email !== mailbox.mail) throw new Error('the session must be of the mailbox owner');
  const start = await send(`${prefix}/connect`, { method: 'POST', cookie: session.cookie, form: { csrf_token: session.csrf } });
  if (start.status !== 302) throw new Error(`POST /connect: ${start.status} ${await start.text()}`);
  const flow = cookieFrom(start, 'mail_oauth');
  const consent = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  const callback = consent.headers.get('location');
  if (consent.status !== 302 || !callback) throw new Error(`authorize: ${consent.status} ${await consent.text()}`);
  const pump = pumpWebhooks(mailbox);
  try {
    return await send(callback, { cookie: `${session.cookie}; ${flow}` });
  } finally {
    await pump.stop();
  }
}

/** A session of a new stand-in mailbox's owner, with that mailbox connected. */
export async function connectedMailbox(name: string) {
  const mailbox = await newMailbox(name);
  const session = await directSession(mailbox.mail);
  const res = await connectMailbox(session, mailbox);
  if (res.status !== 302 || !res.headers.get('location')?.startsWith('/connect?connected=1'))
    throw new Error(`callback: ${res.status} ${res.headers.get('location')} ${await res.text()}`);
  return { mailbox, session };
}

/** The mailbox object of a session's user. */
export const mailbox = (session: { userId: number }) => mailboxStub(env, session.userId);

/** `name=value` of a Set-Cookie header, for sending back. */
export function cookieFrom(res: Response, name: string): string | undefined {
  const line = res.headers.getAll('set-cookie').find((c: string) => c.startsWith(`${name}=`));
  return line?.split(';')[0];
}

// ---- sign-in through the authentication service ------------------------------------------

type Account = { email: string; password: string; totpSecret: string };
const accounts = JSON.parse(env.TEST_ACCOUNTS) as Record<TestAccountName, Account>;
export const account = (name: TestAccountName): Account => accounts[name];

const backupCodes = JSON.parse(env.TEST_BACKUP_CODES) as Record<TestAccountName, string[]>;

/**
 * A code this file has not used yet (the auth service takes each TOTP step once per account): the
 * next unused step, or one of the account's backup codes when the steps around now are used, so a
 * test never waits for the next 30-second window.
 */
export const freshCode = (() => {
  const next = freshCodes((name: TestAccountName) => account(name).totpSecret, backupCodes);
  return async (name: TestAccountName): Promise<string> => {
    // Only when the steps and all ten backup codes are used within one window: wait for the next.
    for (;;) {
      try {
        return next(name);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    }
  };
})();

/** The login form's token and its cookie, from GET /login. */
export async function loginForm(path = '/login'): Promise<{ token: string; cookie: string }> {
  const res = await send(path);
  const html = await res.text();
  const token = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
  const cookie = cookieFrom(res, 'mail_login_form');
  if (!token || !cookie) throw new Error('no login form token');
  return { token, cookie };
}

/** Both sign-in steps through the real authentication service; answers the session cookie. */
export async function signIn(name: TestAccountName): Promise<string> {
  const { email, password } = account(name);
  const first = await loginForm();
  const step1 = await send('/login', { method: 'POST', cookie: first.cookie, form: { csrf_token: first.token, email, password } });
  if (step1.status !== 200) throw new Error(`password step: ${step1.status}`);
  const pending = cookieFrom(step1, 'mail_login_pending');
  const token = /name="csrf_token" value="([^"]+)"/.exec(await step1.text())?.[1];
  const formCookie = cookieFrom(step1, 'mail_login_form');
  const step2 = await send('/login', {
    method: 'POST',
    cookie: `${formCookie}; ${pending}`,
    form: { csrf_token: token!, code: await freshCode(name) },
  });
  const session = cookieFrom(step2, 'mail_session');
  if (step2.status !== 302 || !session) throw new Error(`code step: ${step2.status} ${await step2.text()}`);
  return session;
}
