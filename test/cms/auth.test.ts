import { describe, expect, it } from 'vitest';
import { api, signIn } from './helpers';

describe('sign-in', () => {
  it('signs in through both steps and answers the session user', async () => {
    const cookie = await signIn('auth');
    const me = await api('/api/v1/auth/me', { cookie });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: 'auth-flow@example.com', role: 'ADMIN', firstName: 'auth' });
  });
});
