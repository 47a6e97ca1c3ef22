import { describe, expect, it } from 'vitest';
import { createAccount, signIn, whoami } from './helpers';

describe('smoke', () => {
  it('signs in', async () => {
    const account = await createAccount({ role: 'developer' });
    const tokens = await signIn(account);
    const res = await whoami(tokens.access_token);
    expect(await res.json()).toEqual({ user_name: account.email, user_permissions: 'DEVELOPER' });
  });
});
