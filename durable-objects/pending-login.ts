import { DurableObject } from 'cloudflare:workers';

/** What a correct password proved, waiting for the code. */
export interface PendingLoginState {
  userId: number;
  email: string;
  /** The registered site the password was checked for; null = the siteless credential. */
  siteId: number | null;
  siteName: string;
  ip: string;
}

interface Stored extends PendingLoginState {
  expiresAt: number;
  attempts: number;
}

export type PendingClaim =
  | { ok: true; login: PendingLoginState; attemptsLeft: number }
  | { ok: false; reason: 'unknown' | 'expired' | 'exhausted' };

/**
 * One pending login (one per pending token): lives a fixed time, allows a few code attempts,
 * and is consumed by the first successful verify. The alarm deletes it at expiry.
 */
export class PendingLogin extends DurableObject {
  open(login: PendingLoginState, ttlMs: number): void {
    const expiresAt = Date.now() + ttlMs;
    this.ctx.storage.kv.put<Stored>('login', { ...login, expiresAt, attempts: 0 });
    void this.ctx.storage.setAlarm(expiresAt);
  }

  /** Counts one code attempt; the last allowed attempt still gets its answer. */
  claim(maxAttempts: number): PendingClaim {
    const stored = this.ctx.storage.kv.get<Stored>('login');
    if (!stored) return { ok: false, reason: 'unknown' };
    if (Date.now() >= stored.expiresAt) {
      this.forget();
      return { ok: false, reason: 'expired' };
    }
    if (stored.attempts >= maxAttempts) {
      this.forget();
      return { ok: false, reason: 'exhausted' };
    }
    const attempts = stored.attempts + 1;
    this.ctx.storage.kv.put<Stored>('login', { ...stored, attempts });
    const { expiresAt: _e, attempts: _a, ...login } = stored;
    return { ok: true, login, attemptsLeft: maxAttempts - attempts };
  }

  /** True exactly once: the pending token is single-use. */
  complete(): boolean {
    const stored = this.ctx.storage.kv.get<Stored>('login');
    if (!stored || Date.now() >= stored.expiresAt) return false;
    this.forget();
    return true;
  }

  override alarm(): void {
    this.forget();
  }

  private forget(): void {
    this.ctx.storage.kv.delete('login');
    void this.ctx.storage.deleteAlarm();
  }
}
