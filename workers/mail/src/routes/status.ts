import { Hono } from 'hono';
import { type MailEnv, mailboxStub } from '../context';

/** Gate none: whether a mailbox is connected (the spec's cached provider token). */
export const status = new Hono<MailEnv>();

status.get('/api/auth-status', async (c) => {
  const mailbox = await mailboxStub(c.env).status();
  return c.json({ authenticated: mailbox.connected });
});
