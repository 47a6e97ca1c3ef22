import { describe, expect, it } from 'vitest';
import { open, seal, type SealingKey } from '#shared/sealing.ts';
import { open as mailOpen, seal as mailSeal } from '../../workers/mail/src/sealing.ts';
import { openPassword, refreshTokenKey, sealPassword } from '../../workers/migrate/src/sealing.ts';

// One sealing for every service (workers/shared/sealing.ts). Rows sealed before it existed must
// still open: each value below was sealed by a service's own implementation as it stood before
// the move (CMS session refresh tokens, the mail assistant's session, mailbox and OAuth-state
// values, the migration app's refresh tokens and configuration passwords), with this secret.
const SECRET = 'old-format-fixture-secret-0123456789abcdef';
const SESSION = 'a1b2c3-session-id-hash';
const LEGACY = {
  cms: 'v1.wcekEisiLHv_PQ26.7AL614H-HX5w8Gtv94xtV9rgaNqaWKaiusGKjG8056EhYsuG',
  mailSession: 'v1.x5rvNepPVigxGPYY.3yrnKoMMD-FB2pUKjgtKTzsXZNzqUde7OSiKnJiipnlUbWU9Mg',
  mailOauth: 'v1.Puk0XiPqyuP6HUtD.3hvtGflxtqOthR-j_ESks4RdIU53wTKcd5Y9sUXbF7lH5j5pZpxp-6kkC9BtI0dSANqB',
  mailMailbox: 'v1.XAdBGJ_hj9V0oBbm.D1DLTtq3vCFZEr5fqo_fshC70CWReWiiqKbw2IrbthMRp7T_sO4',
  migrateRefresh: 'v1.N1XKMee2KLJU0Zsy.svZUQFEi5tWQWf6wEjUVH6b565dfGOFWs-a6yhYYrMwEDRrkGbVPqA',
  migratePassword: 'v1.DmeTLuoWKJEnedx9.J6cHOLJ0sSNCXIT1pkTqFe1cUJsKNcKLyg',
};
// The CMS keys its session refresh tokens this way (workers/cms/src/session.ts).
const cmsKey = (secret: string): SealingKey => ({ secret, label: 'cms-session-refresh-token' });
const openRefreshToken = async (secret: string, idHash: string, sealed: string) => {
  const opened = await open(cmsKey(secret), idHash, sealed);
  return opened.ok ? opened.value : undefined;
};
const CONNECTION = { host: 'legacy.example', port: 5432, database: 'legacy', username: 'reader' };

describe('values sealed by the old per-service implementations', () => {
  it('open with the keying each service uses', async () => {
    expect(await openRefreshToken(SECRET, SESSION, LEGACY.cms)).toBe('rt.cms-refresh-token');
    expect(await mailOpen(SECRET, 'auth-refresh-token', SESSION, LEGACY.mailSession)).toBe('rt.mail-refresh-token');
    expect(await mailOpen(SECRET, 'oauth-flow', SESSION, LEGACY.mailOauth)).toBe('{"verifier":"v","state":"s","at":1}');
    expect(await mailOpen(SECRET, 'refresh-token', 'do-id-0123', LEGACY.mailMailbox)).toBe('rt.graph-refresh-token');
    expect(await open(refreshTokenKey(SECRET), SESSION, LEGACY.migrateRefresh)).toEqual({ ok: true, value: 'rt.migrate-refresh-token' });
    expect(await openPassword(SECRET, CONNECTION, LEGACY.migratePassword)).toBe('p@ss word');
  });

  it('do not open under another service’s label, binding or secret', async () => {
    expect(await openRefreshToken(SECRET, SESSION, LEGACY.mailSession)).toBeUndefined();
    expect(await mailOpen(SECRET, 'oauth-flow', SESSION, LEGACY.mailSession)).toBeUndefined();
    expect(await mailOpen(SECRET, 'refresh-token', 'do-id-other', LEGACY.mailMailbox)).toBeUndefined();
    expect(await openRefreshToken(`${SECRET}-rotated`, SESSION, LEGACY.cms)).toBeUndefined();
    await expect(openPassword(SECRET, { ...CONNECTION, port: 5433 }, LEGACY.migratePassword)).rejects.toMatchObject({
      status: 409,
      code: 'password_unreadable',
    });
  });

  it('new values keep the old format, so a rollback could still read them', async () => {
    const sealed = await seal(cmsKey(SECRET), SESSION, 'rt.new');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(await openRefreshToken(SECRET, SESSION, sealed)).toBe('rt.new');
    expect(await mailOpen(SECRET, 'oauth-flow', SESSION, await mailSeal(SECRET, 'oauth-flow', SESSION, 'x'))).toBe('x');
    expect(await openPassword(SECRET, CONNECTION, await sealPassword(SECRET, CONNECTION, 'pw'))).toBe('pw');
  });
});

describe('open: a typed failure for anything that does not open, never a throw', () => {
  const key: SealingKey = { secret: SECRET, label: 'test-label' };

  it('tampered, wrong key, wrong label, wrong binding: not_authentic', async () => {
    const sealed = await seal(key, 'row-1', 'secret text');
    expect(await open(key, 'row-1', sealed)).toEqual({ ok: true, value: 'secret text' });
    const [version, iv, data] = sealed.split('.') as [string, string, string];
    const flipped = `${data.slice(0, 5)}${data[5] === 'A' ? 'B' : 'A'}${data.slice(6)}`;
    const failures = [
      await open(key, 'row-1', `${version}.${iv}.${flipped}`),
      await open(key, 'row-1', `${version}.${iv.split('').reverse().join('')}.${data}`),
      await open({ ...key, secret: `${SECRET}x` }, 'row-1', sealed),
      await open({ ...key, label: 'other-label' }, 'row-1', sealed),
      await open(key, 'row-2', sealed),
    ];
    expect(failures).toEqual(failures.map(() => ({ ok: false, reason: 'not_authentic' })));
  });

  it('anything not in the format: malformed', async () => {
    const sealed = await seal(key, 'row-1', 'x');
    for (const value of [
      '',
      'v1',
      'v1..',
      'v2.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA',
      `${sealed}.extra`,
      'v1.short.AAAAAAAAAAAAAAAAAAAAAA',
      'v1.AAAAAAAAAAAAAAAA.AAAA',
      'v1.!!!!.????',
      '\u0000',
    ]) {
      expect(await open(key, 'row-1', value), JSON.stringify(value)).toEqual({ ok: false, reason: 'malformed' });
    }
  });
});
