import type { Context, Env, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { derivedKey, randomBytes, secretsEqual, toBase64Url, utf8 } from './crypto.ts';
import { HttpError } from './http-error.ts';

/**
 * The one anti-forgery mechanism of the services. A state change is refused when:
 * 1. it comes from another site: its `Origin` is neither this service's origin nor an allowed one;
 *    or the browser marks it `Sec-Fetch-Site: cross-site` (whatever its Origin says); or, with
 *    neither header, its `Referer` names another origin (with none of the three, `requireSource`
 *    refuses it too);
 * 2. it lacks the token of the browser that asked for it: an HMAC of a binding (the session id's
 *    hash once signed in; a random nonce in a cookie for the forms before that, e.g. a login
 *    form) under a key derived from the service's secret and its purpose. The token comes in a
 *    header (scripts) or a form field (forms), is compared in constant time, and is never stored.
 * Each service keeps its own field and header names and its own answer to a refusal (options).
 */

/** Why a request was refused: it came from another site, or its token is missing or wrong. */
export type Refusal = { kind: 'cross-site'; origin?: string } | { kind: 'token' };

export interface SameOriginOptions<E extends Env = Env> {
  /** Origins besides the request's own that may change things (a configured editor, say). */
  allowedOrigins?: (c: Context<E>) => readonly string[];
  /** Refuse a request naming no source at all (no Origin, Sec-Fetch-Site or Referer). */
  requireSource?: boolean;
}

export interface TokenOptions<E extends Env = Env> {
  /** Keeps the tokens of one use (a service's session, a login form) from passing at another. */
  purpose: string;
  secret: (c: Context<E>) => string;
  /** What the token is bound to: the session id's hash, or a form nonce; undefined refuses. */
  binding: (c: Context<E>) => string | undefined | Promise<string | undefined>;
  /** The form field holding the token. */
  field: string;
  /** The header holding the token (scripts), looked at before the field. */
  header?: string;
  /** Read a form body with repeated fields as arrays (`parseBody({ all: true })`), as the handlers do. */
  formAll?: boolean;
}

export interface AntiForgeryOptions<E extends Env = Env> extends SameOriginOptions<E> {
  /** The token part; without it only the same-origin check runs (a JSON API called by other tools). */
  token?: TokenOptions<E>;
  /** The service's answer to a refusal: a response, or a thrown error its error handler renders. */
  refuse: (c: Context<E>, refusal: Refusal) => Response | Promise<Response>;
}

/** Longest token read from a request: a real one is 43 characters. */
const MAX_TOKEN_LENGTH = 100;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const FORM_TYPE = /^(application\/x-www-form-urlencoded|multipart\/form-data)/i;
const NONCE = /^[A-Za-z0-9_-]{32}$/;

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** Why the request counts as coming from another site, or undefined when it does not. */
export function crossSite<E extends Env>(c: Context<E>, options: SameOriginOptions<E> = {}): Refusal | undefined {
  const own = new URL(c.req.url).origin;
  const allowed = (origin: string) => origin === own || (options.allowedOrigins?.(c).includes(origin) ?? false);
  const origin = c.req.header('origin');
  if (origin !== undefined && !allowed(origin)) return { kind: 'cross-site', origin };
  const fetchSite = c.req.header('sec-fetch-site');
  if (fetchSite === 'cross-site') return { kind: 'cross-site' };
  if (origin !== undefined || fetchSite !== undefined) return undefined;
  const referer = c.req.header('referer');
  if (referer !== undefined) {
    const from = originOf(referer);
    return from !== undefined && allowed(from) ? undefined : { kind: 'cross-site', ...(from ? { origin: from } : {}) };
  }
  return options.requireSource ? { kind: 'cross-site' } : undefined;
}

/** The JSON services' answer to a cross-site request: 403 `forbidden_origin`. */
export function forbiddenOrigin(refusal: Refusal): HttpError {
  return refusal.kind === 'cross-site' && refusal.origin !== undefined
    ? new HttpError(403, 'forbidden_origin', `Requests from ${refusal.origin} may not change anything here.`)
    : new HttpError(403, 'forbidden_origin', 'Cross-site requests may not change anything here.');
}

const tokenKey = (secret: string, purpose: string) => derivedKey(secret, purpose, { name: 'HMAC', hash: 'SHA-256' }, ['sign']);

/** The token of a binding: HMAC-SHA256 under the key of the secret and purpose, base64url. */
export async function antiForgeryToken(secret: string, purpose: string, binding: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.sign('HMAC', await tokenKey(secret, purpose), utf8(binding))));
}

/** Whether `submitted` is the token of `binding` (constant-time; anything not a short string fails). */
export async function tokenMatches(secret: string, purpose: string, binding: string | undefined, submitted: unknown): Promise<boolean> {
  if (!binding || typeof submitted !== 'string' || submitted.length === 0 || submitted.length > MAX_TOKEN_LENGTH) return false;
  return secretsEqual(submitted, await antiForgeryToken(secret, purpose, binding));
}

/** The token a request carries: its header, else its form field (form bodies only). */
export async function submittedToken<E extends Env>(c: Context<E>, token: Pick<TokenOptions<E>, 'field' | 'header' | 'formAll'>) {
  const fromHeader = token.header ? c.req.header(token.header) : undefined;
  if (fromHeader !== undefined) return fromHeader;
  if (!FORM_TYPE.test(c.req.header('content-type') ?? '')) return undefined;
  const form: Record<string, unknown> = await c.req.parseBody(token.formAll ? { all: true } : {}).catch(() => ({}));
  const value = form[token.field];
  return typeof value === 'string' ? value : undefined;
}

/** Runs both checks on a request; the refusal, or undefined when it may go on. */
export async function checkAntiForgery<E extends Env>(
  c: Context<E>,
  options: Omit<AntiForgeryOptions<E>, 'refuse'>,
): Promise<Refusal | undefined> {
  const foreign = crossSite(c, options);
  if (foreign) return foreign;
  const token = options.token;
  if (!token) return undefined;
  const submitted = await submittedToken(c, token);
  const ok = await tokenMatches(token.secret(c), token.purpose, await token.binding(c), submitted);
  return ok ? undefined : { kind: 'token' };
}

/** The checks as a middleware for state-changing methods (GET, HEAD and OPTIONS pass). */
export function antiForgery<E extends Env>(options: AntiForgeryOptions<E>): MiddlewareHandler<E> {
  return async (c, next) => {
    if (!SAFE_METHODS.has(c.req.method)) {
      const refusal = await checkAntiForgery(c, options);
      if (refusal) return options.refuse(c, refusal);
    }
    await next();
  };
}

/** A cookie holding a form nonce: the binding of forms shown before there is a session. */
export interface NonceCookie {
  name: string;
  path: string;
  sameSite: 'Strict' | 'Lax';
  /** Seconds; a browser-session cookie without it. */
  maxAge?: number;
}

/** The request's nonce from that cookie, when well formed. */
export function formNonce<E extends Env>(c: Context<E>, cookie: Pick<NonceCookie, 'name'>): string | undefined {
  const nonce = getCookie(c, cookie.name);
  return nonce && NONCE.test(nonce) ? nonce : undefined;
}

/**
 * Sets a new nonce cookie (or, with `keep`, keeps a well-formed one) and answers the nonce, whose
 * token the page then carries.
 */
export function issueFormNonce<E extends Env>(c: Context<E>, cookie: NonceCookie, keep = false): string {
  const kept = keep ? formNonce(c, cookie) : undefined;
  if (kept) return kept;
  const nonce = toBase64Url(randomBytes(24));
  setCookie(c, cookie.name, nonce, {
    httpOnly: true,
    secure: true,
    sameSite: cookie.sameSite,
    path: cookie.path,
    ...(cookie.maxAge !== undefined ? { maxAge: cookie.maxAge } : {}),
  });
  return nonce;
}
