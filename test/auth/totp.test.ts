import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { fromBase32, toBase32, utf8 } from '#shared/crypto.ts';
import {
  decryptTotpSecret,
  encryptTotpSecret,
  hashBackupCode,
  matchTotp,
  newBackupCodes,
  newTotpSecret,
  otpauthUri,
  stepAt,
  totpAt,
} from '../../workers/auth/src/totp';

// RFC 6238 Appendix B: the seeds are ASCII "1234567890" repeated to the hash's block size.
const seeds = {
  'SHA-1': utf8('12345678901234567890'),
  'SHA-256': utf8('12345678901234567890123456789012'),
  'SHA-512': utf8('1234567890123456789012345678901234567890123456789012345678901234'),
} as const;
const vectors: [number, string, string, string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP', () => {
  it.each(vectors)('RFC 6238 Appendix B at T=%i', async (time, sha1, sha256, sha512) => {
    const step = stepAt(time * 1000);
    expect(await totpAt(seeds['SHA-1'], step, 8, 'SHA-1')).toBe(sha1);
    expect(await totpAt(seeds['SHA-256'], step, 8, 'SHA-256')).toBe(sha256);
    expect(await totpAt(seeds['SHA-512'], step, 8, 'SHA-512')).toBe(sha512);
  });

  it('accepts the code of the step before, now and after, and nothing further', async () => {
    const secret = 'JBSWY3DPEHPK3PXP';
    const now = Date.UTC(2026, 10, 23, 12, 0, 15);
    const step = stepAt(now);
    for (const offset of [-1, 0, 1]) {
      const code = await totpAt(fromBase32(secret)!, step + offset);
      expect(await matchTotp(secret, code, now)).toBe(step + offset);
    }
    for (const offset of [-3, -2, 2, 3]) {
      const code = await totpAt(fromBase32(secret)!, step + offset);
      const near = await Promise.all([-1, 0, 1].map(async (o) => totpAt(fromBase32(secret)!, step + o)));
      if (!near.includes(code)) expect(await matchTotp(secret, code, now)).toBeNull();
    }
    expect(await matchTotp(secret, '12345', now)).toBeNull();
    expect(await matchTotp(secret, 'abcdef', now)).toBeNull();
    expect(await matchTotp('not base32!', '123456', now)).toBeNull();
  });

  it('round-trips base32 and makes 160-bit secrets', () => {
    expect(toBase32(fromBase32('JBSWY3DPEHPK3PXP')!)).toBe('JBSWY3DPEHPK3PXP');
    expect(toBase32(utf8('Hello!\xde\xad\xbe\xef'.slice(0, 6)))).toBe('JBSWY3DPEE');
    expect(newTotpSecret()).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(newTotpSecret());
  });

  it('builds an otpauth URI an authenticator app reads', () => {
    const uri = new URL(otpauthUri('Racing back-office', 'demo@example.com', 'JBSWY3DPEHPK3PXP'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Racing back-office:demo@example.com');
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret: 'JBSWY3DPEHPK3PXP',
      issuer: 'Racing back-office',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });

  it('keeps secrets encrypted at rest, bound to the account', async () => {
    const key = env.AUTH_TOTP_ENCRYPTION_KEY;
    const sealed = await encryptTotpSecret('JBSWY3DPEHPK3PXP', 'a@example.com', key);
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(sealed).not.toBe(await encryptTotpSecret('JBSWY3DPEHPK3PXP', 'a@example.com', key));
    expect(await decryptTotpSecret(sealed, 'A@example.com', key)).toBe('JBSWY3DPEHPK3PXP');
    expect(await decryptTotpSecret(sealed, 'b@example.com', key)).toBeNull();
    expect(await decryptTotpSecret(sealed, 'a@example.com', 'b3RoZXIta2V5LTMyLWJ5dGVzLWxvbmctLS0tLS0tLS0=')).toBeNull();
    expect(await decryptTotpSecret('garbage', 'a@example.com', key)).toBeNull();
  });

  it('makes ten distinct backup codes, hashed regardless of case and dashes', async () => {
    const codes = newBackupCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z0-9]{4}-[a-z0-9]{4}$/);
    expect(await hashBackupCode('ABCD-efgh')).toBe(await hashBackupCode('abcdefgh'));
    expect(await hashBackupCode('abcd-efgh')).not.toBe(await hashBackupCode('abcd-efgj'));
  });
});
