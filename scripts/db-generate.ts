import { parseArgs } from 'node:util';
import pg from 'pg';
import { racingToday } from './racing-today';
import { loadRacing } from './racing/load';
import { DEFAULT_SEED, RACING_SIZES, isRacingSize } from './racing/sizes';

// npm run db:generate -- --size tiny|demo|bench [--seed N] [--today YYYY-MM-DD]
function fail(message: string, code = 2): never {
  console.error(`✗ ${message}`);
  process.exit(code);
}

function options() {
  try {
    const { values } = parseArgs({
      options: { size: { type: 'string', default: 'demo' }, seed: { type: 'string' }, today: { type: 'string' } },
    });
    const size = values.size ?? 'demo';
    if (!isRacingSize(size)) fail(`--size must be one of ${RACING_SIZES.join(', ')} (got "${size}")`);
    const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
    if (!Number.isSafeInteger(seed) || seed < 0) fail(`--seed must be a non-negative integer (got "${values.seed}")`);
    const today = values.today ?? racingToday();
    if (!/^\d{4}-\d{2}-\d{2}$/.test(today) || Number.isNaN(Date.parse(today))) fail(`--today must be a date YYYY-MM-DD (got "${today}")`);
    return { size, seed, today };
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
}

const { size, seed, today } = options();
const url = process.env.DATABASE_URL;
if (!url) {
  fail('DATABASE_URL is not set: point it at a PostgreSQL database (postgres://…), or use `npm run dev`, which starts the embedded one and loads demo data', 1);
}

const client = new pg.Client({ connectionString: url });
await client.connect().catch((err: Error) => fail(`cannot connect to DATABASE_URL: ${err.message}`, 1));
console.log(`Loading ${size} racing data (seed ${seed}, anchored on ${today})`);
const started = Date.now();
const tty = process.stdout.isTTY;
let current = '';
try {
  const loaded = await loadRacing(client, { size, seed, today }, ({ table, rows }) => {
    if (tty) process.stdout.write(`\r  ${table.padEnd(16)} ${rows.toLocaleString('en-AU').padStart(10)} rows`);
    else if (table !== current) console.log(`  ${table}…`);
    current = table;
  });
  if (tty) process.stdout.write('\r\x1b[K');
  for (const [table, rows] of Object.entries(loaded)) console.log(`  ${table.padEnd(16)} ${rows.toLocaleString('en-AU').padStart(10)} rows`);
  console.log(`Done in ${((Date.now() - started) / 1000).toFixed(1)} s (tables, bulk rows, indexes, ANALYZE).`);
} catch (err) {
  if (tty) process.stdout.write('\n');
  fail(`load failed (nothing was changed): ${err instanceof Error ? err.message : String(err)}`, 1);
} finally {
  await client.end();
}
