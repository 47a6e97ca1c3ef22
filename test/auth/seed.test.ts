import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { backupCodes, users } from '#d1/auth/schema.ts';
import { DEV_ACCOUNT, devSeedSql } from '../../workers/auth/src/account-sql';
import { codeFor, db, post, whoami, type Tokens } from './helpers';

// The statements `npm run dev` applies with `wrangler d1 execute` (test/scripts runs that path itself).
describe('development seed', () => {
  it('creates the demo account once, and it signs in with password and TOTP', async () => {
    for (let i = 0; i < 2; i++) {
      const { statements } = await devSeedSql(env.AUTH_TOTP_ENCRYPTION_KEY, 'Racing back-office');
      await env.DB.batch(statements.map((sql) => env.DB.prepare(sql)));
    }
    const rows = await db().select().from(users).where(eq(users.email, DEV_ACCOUNT.email));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.role).toBe('admin');
    expect(rows[0]!.totpSecret).not.toContain(DEV_ACCOUNT.totpSecret);
    expect(await db().select().from(backupCodes).where(eq(backupCodes.userId, rows[0]!.id))).toHaveLength(10);

    const login = await post('/api/login/', { email: DEV_ACCOUNT.email, password: DEV_ACCOUNT.password, site: '' });
    expect(login.status).toBe(200);
    const { pending_token } = await login.json<{ pending_token: string }>();
    const verify = await post('/api/verify-2fa/', { pending_token, code: await codeFor(DEV_ACCOUNT.totpSecret) });
    expect(verify.status).toBe(200);
    const tokens = await verify.json<Tokens>();
    expect(tokens.user).toEqual({ id: rows[0]!.id, email: 'demo@example.com', first_name: 'Demo', last_name: 'Admin', role: 'admin' });
    expect(await (await whoami(tokens.access_token)).json()).toEqual({ user_name: 'demo@example.com', user_permissions: 'ADMIN' });
  });
});
