import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { credentials } from '#d1/auth/schema.ts';
import { toBase64Url, utf8 } from '#shared/crypto.ts';
import { DJANGO_MAX_ITERATIONS, SCRYPT, hashPassword, verifyPassword } from '../../workers/auth/src/passwords';
import { codeFor, createAccount, db, post } from './helpers';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha256 } from '@noble/hashes/sha2.js';

/** A test that derives hundreds of thousands of PBKDF2 rounds (in the test and in the Worker): seconds alone, far more on shared cores. */
const PBKDF2_TIMEOUT_MS = 120_000;

/** A hash as Django's PBKDF2PasswordHasher writes it. */
function djangoHash(password: string, salt: string, iterations: number): string {
  const hash = pbkdf2(sha256, utf8(password), utf8(salt), { c: iterations, dkLen: 32 });
  return `pbkdf2_sha256$${iterations}$${salt}$${btoa(String.fromCharCode(...hash))}`;
}

describe('password hashing', () => {
  it('uses one of OWASP’s minimum scrypt settings, within a Worker’s memory', () => {
    // OWASP Password Storage Cheat Sheet: N=2^17/r=8/p=1, 2^16/8/2, 2^15/8/3, 2^14/8/5 or 2^13/8/10.
    const owasp = [
      [2 ** 17, 8, 1],
      [2 ** 16, 8, 2],
      [2 ** 15, 8, 3],
      [2 ** 14, 8, 5],
      [2 ** 13, 8, 10],
    ];
    expect(owasp).toContainEqual([SCRYPT.N, SCRYPT.r, SCRYPT.p]);
    expect(128 * SCRYPT.N * SCRYPT.r).toBeLessThanOrEqual(32 * 1024 * 1024);
    const hash = hashPassword('pw-1');
    expect(hash).toMatch(/^scrypt\$16384\$8\$5\$[\w-]{22}\$[\w-]{43}$/);
    expect(hashPassword('pw-1')).not.toBe(hash);
  });

  it('verifies its own hashes and refuses wrong or malformed ones', async () => {
    const hash = hashPassword('s3cret pass');
    expect(await verifyPassword('s3cret pass', hash)).toEqual({ ok: true, rehash: false });
    expect(await verifyPassword('s3cret pasS', hash)).toEqual({ ok: false, rehash: false });
    for (const bad of ['', 'scrypt$x', 'scrypt$1048576$8$1$abc$def', 'md5$abc$def', hash.replace(/\$[^$]+$/, '$!!!')]) {
      expect((await verifyPassword('s3cret pass', bad)).ok).toBe(false);
    }
  });

  it('asks to re-hash a correct password stored with weaker scrypt parameters', async () => {
    const weak = hashPassword('x').replace('scrypt$16384$8$5', 'scrypt$1024$8$1');
    expect((await verifyPassword('x', weak)).ok).toBe(false);
    const salt = new Uint8Array(16);
    const { scrypt } = await import('@noble/hashes/scrypt.js');
    const real = `scrypt$1024$8$1$${toBase64Url(salt)}$${toBase64Url(scrypt(utf8('x'), salt, { N: 1024, r: 8, p: 1, dkLen: 32 }))}`;
    expect(await verifyPassword('x', real)).toEqual({ ok: true, rehash: true });
  });

  it('refuses WebCrypto PBKDF2 above 100,000 iterations, as production Workers do', async () => {
    const key = await crypto.subtle.importKey('raw', utf8('pw'), 'PBKDF2', false, ['deriveBits']);
    const params = { name: 'PBKDF2', hash: 'SHA-256', salt: utf8('salt') };
    await expect(crypto.subtle.deriveBits({ ...params, iterations: 100_001 }, key, 256)).rejects.toThrow(/100000/);
    await expect(crypto.subtle.deriveBits({ ...params, iterations: 100_000 }, key, 256)).resolves.toBeInstanceOf(ArrayBuffer);
  });

  it('verifies Django pbkdf2_sha256 hashes at old and current iteration counts', { timeout: PBKDF2_TIMEOUT_MS }, async () => {
    // Django's own test vector (django/tests/auth_tests/test_hashers.py, 1.4-era default).
    expect((await verifyPassword('lètmein', 'pbkdf2_sha256$10000$seasalt$CWWFdHOWwPnki7HvkcqN9iA2T3KLW1cf2uZ5kvArtVY=')).ok).toBe(true);
    const current = djangoHash('lètmein', 'seasalt2', 1_000_000);
    expect(await verifyPassword('lètmein', current)).toEqual({ ok: true, rehash: true });
    expect(await verifyPassword('letmein', current)).toEqual({ ok: false, rehash: false });
  });

  it('refuses Django hashes above the iteration bound without computing them', async () => {
    const started = Date.now();
    const tooMany = `pbkdf2_sha256$${DJANGO_MAX_ITERATIONS + 1}$salt$${btoa('x'.repeat(32))}`;
    expect(await verifyPassword('pw', tooMany)).toEqual({ ok: false, rehash: false });
    expect(await verifyPassword('pw', 'pbkdf2_sha256$abc$salt$hash')).toEqual({ ok: false, rehash: false });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('re-hashes an imported Django hash with scrypt on a successful login', { timeout: PBKDF2_TIMEOUT_MS }, async () => {
    const account = await createAccount({ password: 'imported-pass-1', passwordHash: djangoHash('imported-pass-1', 'abc123', 600_000) });
    const wrong = await post('/api/login/', { email: account.email, password: 'imported-pass-2', site: '' });
    expect(wrong.status).toBe(400);
    const [before] = await db().select().from(credentials).where(eq(credentials.userId, account.id));
    expect(before!.passwordHash).toMatch(/^pbkdf2_sha256\$600000\$/);

    const res = await post('/api/login/', { email: account.email, password: 'imported-pass-1', site: '' });
    expect(res.status).toBe(200);
    const [after] = await db().select().from(credentials).where(eq(credentials.userId, account.id));
    expect(after!.passwordHash).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect(await verifyPassword('imported-pass-1', after!.passwordHash)).toEqual({ ok: true, rehash: false });
    // And the account still completes its login with the new hash.
    const again = await post('/api/login/', { email: account.email, password: 'imported-pass-1', site: '' });
    const pending = (await again.json<{ pending_token: string }>()).pending_token;
    expect((await post('/api/verify-2fa/', { pending_token: pending, code: await codeFor(account.secret) })).status).toBe(200);
  });
});
