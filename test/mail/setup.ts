import { applyD1Migrations, env } from 'cloudflare:test';
import { afterAll } from 'vitest';

// Before each file (a migration already applied is skipped).
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// The cron (the mailboxes, replies-tracked and webhook tests run it) walks every connected mailbox
// and every reply awaiting an answer in the database. A file leaves none of its own behind: were
// the files to share a workerd (SHARED_WORKERD), a later file's cron would renew, re-create or
// follow up on mailboxes whose stand-in webhooks nobody hands over any more, and fail on them.
// What is listed when a file ends is its own (a workerd runs one file at a time).
afterAll(async () => {
  await env.DB.batch([
    env.DB.prepare('DELETE FROM subscriptions'),
    env.DB.prepare('DELETE FROM mailboxes'),
    env.DB.prepare('DELETE FROM ai_sent_replies'),
  ]);
});
