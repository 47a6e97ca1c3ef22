import { applyD1Migrations, env, reset } from 'cloudflare:test';

// Each file starts on empty storage, also when files take turns in one workerd (isolate: false):
// reset() deletes D1 (its migrations table too), R2 and every Durable Object's storage, cancels
// their alarms and ends running objects, so a file finds no configuration, active source, sync job,
// auto-sync, login session, rate-limit count or job object but its own. reset() empties only the
// objects that are loaded, and D1 and R2 are objects too, unloaded after a while unused (a file of
// engine tests uses neither): each is woken first, and a D1 that kept its tables fails here.
await Promise.all([env.DB.prepare('SELECT 1').run(), env.SHEETS.head('reset')]);
await reset();
const { results: left } = await env.DB.prepare(
  "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'",
).all<{ name: string }>();
if (left.length > 0) throw new Error(`D1 still holds tables after reset(): ${left.map((t) => t.name).join(', ')}`);
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
