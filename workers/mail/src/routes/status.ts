import { Hono } from 'hono';
import { anonymous } from '#shared/guard.ts';
import { type MailEnv, mailboxStub } from '../context.ts';
import { readSession } from '../session.ts';

/**
 * Gate none (the spec leaves it open): whether the caller's own mailbox is connected (the spec's
 * cached provider token). Without a live session there is no mailbox of the caller's: false.
 */
export const status = new Hono<MailEnv>();

status.get('/api/auth-status', anonymous, async (c) => {
  const session = await readSession(c);
  if (!session) return c.json({ authenticated: false });
  const mailbox = await mailboxStub(c.env, session.user.id).status();
  return c.json({ authenticated: mailbox.connected });
});
