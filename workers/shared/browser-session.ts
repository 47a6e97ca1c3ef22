import type { Context, Env } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { RefreshOutcome } from './auth-client.ts';
import { randomBytes, sha256Hex, toBase64Url } from './crypto.ts';
import { HttpError } from './http-error.ts';
import { openOrUndefined, type SealingKey, seal } from './sealing.ts';

/**
 * The one browser session of the services: an opaque cookie (256 random bits) naming a
 * server-side row keyed by the id's SHA-256, and a logout that deletes the row, so the cookie and
 * every copy of it stop working at once. A service that signs people in through the
 * authentication service (`upstream`) also keeps their refresh token sealed in that row (bound to
 * it) and rechecks it every `recheckSeconds` (a refresh-token rotation: a revoked family or a
 * deactivated account ends the session there), with a grace period while that service cannot be
 * reached. Each service keeps its cookie name and its rows (its `SessionStore`); the rules are these.
 */

/** A session's row as the rules see it; `profile` is what the service stores about the person. */
export interface SessionRow<P> {
  idHash: string;
  profile: P;
  /** Empty for a session without an upstream. */
  refreshTokenSealed: string;
  /** When the authentication service last confirmed the session (ms); its start without an upstream. */
  checkedAt: number;
  expiresAt: number;
}

/** Where a service keeps its session rows (its D1 table, through its data layer). */
export interface SessionStore<P> {
  insert(row: SessionRow<P>): Promise<void>;
  find(idHash: string): Promise<SessionRow<P> | undefined>;
  /** Sets `checkedAt` to `now` only while it is still `seen`; true when this caller claimed the recheck. */
  claimRecheck(idHash: string, seen: number, now: number): Promise<boolean>;
  /** Puts `checkedAt` back (the recheck could not reach the authentication service). */
  releaseRecheck(idHash: string, checkedAt: number): Promise<void>;
  reseal(idHash: string, refreshTokenSealed: string): Promise<void>;
  /** Deletes the row, answering it when there was one. */
  remove(idHash: string): Promise<SessionRow<P> | undefined>;
  removeExpired(now: number): Promise<void>;
}

/** The authentication service behind a session: how often to confirm it, and how. */
export interface Upstream {
  recheckSeconds: number;
  /** The refresh token at rest: sealed under this key, bound to the row. */
  sealing: SealingKey;
  /** Rotates a refresh token there (throws when that service cannot be reached). */
  refresh(refreshToken: string): Promise<RefreshOutcome>;
}

export interface SessionPolicy {
  /** The service's name in its structured log lines. */
  service: string;
  cookie: string;
  cookiePath: string;
  sameSite?: 'Lax' | 'Strict';
  maxAgeSeconds: number;
  upstream?: Upstream;
}

/** Past this many recheck periods without reaching the authentication service, a session is refused. */
export const OUTAGE_GRACE_PERIODS = 3;

/** Why a request has no live session. */
export type NoSession = 'absent' | 'malformed' | 'ended' | 'revoked' | 'deactivated';

export type SessionRead<P> = { kind: 'live'; idHash: string; profile: P } | { kind: 'none'; reason: NoSession };

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** A new session (not yet stored): its cookie value, a random 256-bit id, and its row. */
export async function newSessionRow<P>(
  profile: P,
  policy: Pick<SessionPolicy, 'maxAgeSeconds'> & { upstream?: Pick<Upstream, 'sealing'> },
  refreshToken?: string,
  now = Date.now(),
): Promise<{ id: string; row: SessionRow<P> }> {
  const id = toBase64Url(randomBytes(32));
  const idHash = await sha256Hex(id);
  const upstream = policy.upstream;
  const row: SessionRow<P> = {
    idHash,
    profile,
    refreshTokenSealed: upstream && refreshToken !== undefined ? await seal(upstream.sealing, idHash, refreshToken) : '',
    checkedAt: now,
    expiresAt: now + policy.maxAgeSeconds * 1000,
  };
  return { id, row };
}

type Caller<E extends Env> = Context<E>;

export class BrowserSessions<P> {
  constructor(
    private readonly store: SessionStore<P>,
    private readonly policy: SessionPolicy,
  ) {}

  private cookieOptions() {
    return { httpOnly: true, secure: true, sameSite: this.policy.sameSite ?? 'Lax', path: this.policy.cookiePath } as const;
  }

  /** Stores the session of a completed sign-in and sets its cookie; answers the id's hash. */
  async start<E extends Env>(c: Caller<E>, profile: P, refreshToken?: string, now = Date.now()): Promise<string> {
    const { id, row } = await newSessionRow(profile, this.policy, refreshToken, now);
    await this.store.insert(row);
    // Expired rows of anyone: a cheap indexed delete keeps the table to live sessions.
    c.executionCtx.waitUntil(this.store.removeExpired(now).catch(() => {}));
    setCookie(c, this.policy.cookie, id, { ...this.cookieOptions(), maxAge: this.policy.maxAgeSeconds });
    return row.idHash;
  }

  /**
   * The live session the cookie names, rechecked when due; otherwise why not (its cookie then
   * cleared). A 502 `auth_unavailable` when the authentication service has been unreachable for
   * longer than the grace period.
   */
  async read<E extends Env>(c: Caller<E>, now = Date.now()): Promise<SessionRead<P>> {
    const id = getCookie(c, this.policy.cookie);
    if (!id) return { kind: 'none', reason: 'absent' };
    if (!SESSION_ID.test(id)) return this.none(c, 'malformed');
    const idHash = await sha256Hex(id);
    const row = await this.store.find(idHash);
    if (!row || row.expiresAt <= now) return this.none(c, 'ended');
    const upstream = this.policy.upstream;
    if (upstream && now - row.checkedAt >= upstream.recheckSeconds * 1000) {
      const ended = await this.recheck(c, upstream, row, now);
      if (ended) return this.none(c, ended);
    }
    return { kind: 'live', idHash, profile: row.profile };
  }

  /** Deletes the caller's session and its cookie; answers its refresh token for the caller to revoke upstream. */
  async end<E extends Env>(c: Caller<E>): Promise<string | undefined> {
    const id = getCookie(c, this.policy.cookie);
    deleteCookie(c, this.policy.cookie, this.cookieOptions());
    if (!id || !SESSION_ID.test(id)) return undefined;
    const idHash = await sha256Hex(id);
    const row = await this.store.remove(idHash);
    const upstream = this.policy.upstream;
    return row && upstream ? openOrUndefined(upstream.sealing, idHash, row.refreshTokenSealed) : undefined;
  }

  private none<E extends Env>(c: Caller<E>, reason: NoSession): SessionRead<P> {
    deleteCookie(c, this.policy.cookie, this.cookieOptions());
    return { kind: 'none', reason };
  }

  /**
   * Confirms a session by rotating its refresh token; the reason it ended, or undefined when it
   * goes on. Of concurrent requests that find it due, one claims the recheck (compare-and-set on
   * `checkedAt`) and the others go on: the same refresh token is never presented twice (a second
   * presentation would look like theft upstream and revoke the family).
   */
  private async recheck<E extends Env>(c: Caller<E>, upstream: Upstream, row: SessionRow<P>, now: number): Promise<NoSession | undefined> {
    if (!(await this.store.claimRecheck(row.idHash, row.checkedAt, now))) return undefined;
    const refreshToken = await openOrUndefined(upstream.sealing, row.idHash, row.refreshTokenSealed);
    if (refreshToken === undefined) {
      // Sealed under another secret (or damaged): nothing to recheck with, the session ends.
      await this.store.remove(row.idHash);
      return 'ended';
    }
    let outcome: RefreshOutcome;
    try {
      outcome = await upstream.refresh(refreshToken);
    } catch (err) {
      // Unreachable: a session confirmed recently stays usable, so an outage does not sign everyone
      // out; the next request tries again.
      await this.store.releaseRecheck(row.idHash, row.checkedAt);
      const periods = (now - row.checkedAt) / (upstream.recheckSeconds * 1000);
      if (periods > OUTAGE_GRACE_PERIODS) {
        throw err instanceof HttpError
          ? err
          : new HttpError(502, 'auth_unavailable', 'The authentication service could not be reached; try again shortly.');
      }
      this.log(c, 'warn', 'session_recheck_failed', { error: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
    if (outcome.kind === 'ended') {
      await this.store.remove(row.idHash);
      this.log(c, 'info', 'session_ended_upstream', { status: outcome.status });
      return outcome.status === 403 ? 'deactivated' : 'revoked';
    }
    await this.store.reseal(row.idHash, await seal(upstream.sealing, row.idHash, outcome.tokens.refresh_token));
    return undefined;
  }

  private log<E extends Env>(c: Caller<E>, level: 'warn' | 'info', event: string, fields: Record<string, unknown>): void {
    const requestId: unknown = Reflect.get(c.var, 'requestId');
    const line = JSON.stringify({ level, service: this.policy.service, request_id: requestId, event, ...fields });
    if (level === 'warn') console.warn(line);
    else console.info(line);
  }
}
