import { describe, expect, it } from 'vitest';
import { SCRYPT, hashPassword, verifyPassword } from '../../workers/auth/src/passwords';
import { TEST_SCRYPT, passwordHash } from '../support/auth-service';

// The test auth services store their accounts' passwords at cheap scrypt parameters, hashed by
// Node's native scrypt (test/support/auth-service.ts): the auth Worker must check them as its own
// scheme and ask for its own parameters at the first sign-in.
describe('test account password hashes', () => {
  it('are in the Worker’s scheme, verify like its own, and are rehashed at the first sign-in', { timeout: 60_000 }, async () => {
    const hash = await passwordHash('a-test-password');
    expect(hash.split('$')[0]).toBe(hashPassword('x').split('$')[0]);
    expect(hash.split('$').slice(0, 4)).toEqual(['scrypt', String(TEST_SCRYPT.N), String(TEST_SCRYPT.r), String(TEST_SCRYPT.p)]);
    expect(TEST_SCRYPT.N * TEST_SCRYPT.p).toBeLessThan(SCRYPT.N * SCRYPT.p);
    expect(await verifyPassword('a-test-password', hash)).toEqual({ ok: true, rehash: true });
    expect(await verifyPassword('another-password', hash)).toEqual({ ok: false, rehash: false });
  });

  it('have a salt of their own each time', async () => {
    const [one, two] = await Promise.all([passwordHash('same-password'), passwordHash('same-password')]);
    expect(one).not.toBe(two);
    expect(one.split('$')[4]).not.toBe(two.split('$')[4]);
  });
});
