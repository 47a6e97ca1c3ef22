import { DurableObject } from 'cloudflare:workers';

interface Failures {
  count: number;
  windowStart: number;
  lockedUntil: number;
}

interface Bucket {
  windowStart: number;
  count: number;
}

export interface GuardVerdict {
  allowed: boolean;
  retryAfterSeconds: number;
}

/**
 * Counts failures and requests for one key: an account (`account:<email>`, kept for unknown
 * e-mails too, so a lockout says nothing about whether an account exists) or a client IP
 * (`ip:<address>`). One instance per key serialises its counters without a database.
 */
export class AccountGuard extends DurableObject {
  /** Whether the account may try now. */
  status(): GuardVerdict {
    const failures = this.ctx.storage.kv.get<Failures>('failures');
    const now = Date.now();
    if (failures && failures.lockedUntil > now)
      return { allowed: false, retryAfterSeconds: Math.ceil((failures.lockedUntil - now) / 1000) };
    return { allowed: true, retryAfterSeconds: 0 };
  }

  /** One failed password or code; at `threshold` failures inside `windowMs` the account locks for `lockMs`. */
  recordFailure(threshold: number, windowMs: number, lockMs: number): { lockedNow: boolean } {
    const now = Date.now();
    const previous = this.ctx.storage.kv.get<Failures>('failures');
    const fresh = !previous || now - previous.windowStart > windowMs;
    const count = fresh ? 1 : previous.count + 1;
    const windowStart = fresh ? now : previous.windowStart;
    if (count >= threshold) {
      this.ctx.storage.kv.put<Failures>('failures', { count: 0, windowStart: now, lockedUntil: now + lockMs });
      return { lockedNow: true };
    }
    this.ctx.storage.kv.put<Failures>('failures', { count, windowStart, lockedUntil: previous?.lockedUntil ?? 0 });
    return { lockedNow: false };
  }

  recordSuccess(): void {
    this.ctx.storage.kv.delete('failures');
  }

  /** A fixed-window rate limit: `limit` calls per `windowMs`. */
  take(limit: number, windowMs: number): GuardVerdict {
    const now = Date.now();
    const bucket = this.ctx.storage.kv.get<Bucket>('bucket');
    const current = bucket && now - bucket.windowStart < windowMs ? bucket : { windowStart: now, count: 0 };
    if (current.count >= limit) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((current.windowStart + windowMs - now) / 1000)) };
    }
    this.ctx.storage.kv.put<Bucket>('bucket', { ...current, count: current.count + 1 });
    return { allowed: true, retryAfterSeconds: 0 };
  }
}
