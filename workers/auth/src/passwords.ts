import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { scrypt } from '@noble/hashes/scrypt.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { constantTimeEqual, fromBase64Url, randomBytes, toBase64Url, utf8 } from '#shared/crypto.ts';

/**
 * scrypt at one of OWASP's minimum settings (N=2^14, r=8, p=5: the same work as N=2^17, r=8,
 * p=1, but 16 MiB of memory instead of 128 MiB, which is the whole memory of a Worker isolate).
 * About 230 ms of CPU per hash in V8; see the README for the measurements.
 */
export const SCRYPT = { N: 2 ** 14, r: 8, p: 5, dkLen: 32 } as const;

/** WebCrypto PBKDF2 in production Workers refuses more iterations than this. */
export const WEBCRYPTO_PBKDF2_MAX_ITERATIONS = 100_000;
/** Imported Django hashes above this are refused rather than burning seconds of CPU (Django 6.0 uses 1,200,000). */
export const DJANGO_MAX_ITERATIONS = 1_500_000;

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scrypt(utf8(password), salt, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${toBase64Url(salt)}$${toBase64Url(hash)}`;
}

export interface PasswordCheck {
  ok: boolean;
  /** The stored hash is not the current scheme (e.g. imported from Django): store a new one. */
  rehash: boolean;
}

/** Checks a password against a stored hash of either scheme; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<PasswordCheck> {
  const parts = stored.split('$');
  if (parts[0] === 'scrypt' && parts.length === 6) {
    const [, n, r, p, salt, hash] = parts;
    const params = { N: Number(n), r: Number(r), p: Number(p) };
    const saltBytes = fromBase64Url(salt!);
    const expected = fromBase64Url(hash!);
    if (!saltBytes || !expected || !validScrypt(params)) return { ok: false, rehash: false };
    const actual = scrypt(utf8(password), saltBytes, { ...params, dkLen: expected.length });
    const ok = constantTimeEqual(actual, expected);
    const current = params.N === SCRYPT.N && params.r === SCRYPT.r && params.p === SCRYPT.p;
    return { ok, rehash: ok && !current };
  }
  if (parts[0] === 'pbkdf2_sha256' && parts.length === 4) {
    const [, iterationsText, salt, hash] = parts;
    const iterations = Number(iterationsText);
    const expected = fromBase64Url(hash!);
    if (!Number.isInteger(iterations) || iterations < 1 || iterations > DJANGO_MAX_ITERATIONS || !expected || expected.length !== 32) {
      return { ok: false, rehash: false };
    }
    const actual = await djangoPbkdf2(password, salt!, iterations);
    const ok = constantTimeEqual(actual, expected);
    return { ok, rehash: ok };
  }
  return { ok: false, rehash: false };
}

/** Django's pbkdf2_sha256: WebCrypto where production allows it, @noble/hashes above that. */
async function djangoPbkdf2(password: string, salt: string, iterations: number): Promise<Uint8Array> {
  if (iterations <= WEBCRYPTO_PBKDF2_MAX_ITERATIONS) {
    const key = await crypto.subtle.importKey('raw', utf8(password), 'PBKDF2', false, ['deriveBits']);
    return new Uint8Array(await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: utf8(salt), iterations }, key, 256));
  }
  return pbkdf2(sha256, utf8(password), utf8(salt), { c: iterations, dkLen: 32 });
}

function validScrypt({ N, r, p }: { N: number; r: number; p: number }): boolean {
  // Bounded so a tampered row cannot make one login allocate gigabytes.
  return (
    Number.isInteger(N) && N >= 2 && N <= 2 ** 17 && (N & (N - 1)) === 0 && r >= 1 && r <= 16 && p >= 1 && p <= 16 && N * r * 128 <= 2 ** 27
  );
}

/**
 * Verified for unknown accounts so they take as long as known ones (no enumeration by timing).
 * Its password was random and discarded: nothing matches it.
 */
export const DUMMY_PASSWORD_HASH = 'scrypt$16384$8$5$lEc-hPoIYlmlBDYeF1RhWw$FXXTPEwASDlxw4Jo-FiLSt8phRhzOYgKv3Amu9usHfg';
