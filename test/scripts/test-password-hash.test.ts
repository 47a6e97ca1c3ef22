import { describe, expect, it } from 'vitest';
import { SCRYPT, hashPassword, verifyPassword } from '../../workers/auth/src/passwords';
import { passwordHash } from '../support/auth-service';

// The test auth services hash their accounts' passwords with Node's native scrypt
// (test/support/auth-service.ts): the auth Worker must take those hashes as its own.
describe('test account password hashes', () => {
  it('are in the Worker’s scheme and verify like its own', { timeout: 60_000 }, async () => {
    const hash = await passwordHash('a-test-password');
    expect(hash.split('$').slice(0, 4)).toEqual(hashPassword('x').split('$').slice(0, 4));
    expect(hash.split('$').slice(0, 4)).toEqual(['scrypt', String(SCRYPT.N), String(SCRYPT.r), String(SCRYPT.p)]);
    expect(await verifyPassword('a-test-password', hash)).toEqual({ ok: true, rehash: false });
    expect(await verifyPassword('another-password', hash)).toEqual({ ok: false, rehash: false });
  });

  it('have a salt of their own each time', { timeout: 60_000 }, async () => {
    const [one, two] = await Promise.all([passwordHash('same-password'), passwordHash('same-password')]);
    expect(one).not.toBe(two);
    expect(one.split('$')[4]).not.toBe(two.split('$')[4]);
  });
});
