import { parseArgs } from 'node:util';
import pg from 'pg';
import { racingToday } from './racing-today.ts';
import { parseIsoDate } from './racing/calendar.ts';
import { type LoadProgress, loadRacing } from './racing/load.ts';
import { DEFAULT_SEED, RACING_SIZES, type RacingSize, isRacingSize } from './racing/sizes.ts';

// npm run db:generate -- --size tiny|demo|bench [--seed N] [--today YYYY-MM-DD]
// Replaces the racing tables of the database at DATABASE_URL with a generated data set.

const USAGE = 'usage: npx tsx scripts/db-generate.ts --size tiny|demo|bench [--seed N] [--today YYYY-MM-DD]';

function fail(message: string, exitCode: number): never {
  console.error(`✗ ${message}`);
  process.exit(exitCode);
}

function readArguments(): { size: RacingSize; seed: number; today: string } {
  let values: { size?: string; seed?: string; today?: string };
  try {
    ({ values } = parseArgs({
      options: { size: { type: 'string' }, seed: { type: 'string' }, today: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, 2);
  }
  const { size, seed: seedText, today = racingToday() } = values;
  if (size === undefined) fail(`--size is required (one of ${RACING_SIZES.join(', ')})\n${USAGE}`, 2);
  if (!isRacingSize(size)) fail(`unknown size "${size}": expected one of ${RACING_SIZES.join(', ')}`, 2);
  const seed = seedText === undefined ? DEFAULT_SEED : Number(seedText);
  if (!/^\d+$/.test(seedText ?? '0') || !Number.isSafeInteger(seed) || seed > 2_147_483_647) {
    fail(`--seed must be a whole number from 0 to 2147483647 (got "${seedText}")`, 2);
  }
  try {
    parseIsoDate(today);
  } catch (error) {
    fail(`--today: ${error instanceof Error ? error.message : String(error)}`, 2);
  }
  return { size, seed, today };
}

const count = (n: number) => n.toLocaleString('en-AU');

function describe({ table, rows, total }: LoadProgress): string {
  if (table === 'analyze') return 'analyze          running';
  const unit = table === 'indexes' ? 'statements' : 'rows';
  return `${table.padEnd(16)} ${count(rows).padStart(9)}${total === undefined ? '' : ` / ${count(total)}`} ${unit}`;
}

/** On a terminal: one line per table, redrawn in place. Otherwise: a line as each table completes. */
function progressReporter(out: NodeJS.WriteStream) {
  const lines = new Map<string, string>();
  let drawnLines = 0;
  let lastDraw = 0;
  const draw = () => {
    if (drawnLines > 0) out.write(`\x1b[${drawnLines}A`);
    for (const line of lines.values()) out.write(`\r\x1b[K  ${line}\n`);
    drawnLines = lines.size;
    lastDraw = performance.now();
  };
  return {
    report(progress: LoadProgress) {
      lines.set(progress.table, describe(progress));
      if (out.isTTY) {
        if (performance.now() - lastDraw > 100 || progress.table === 'analyze') draw();
      } else if (progress.table === 'analyze' || progress.rows === progress.total) {
        out.write(`  ${describe(progress)}\n`);
      }
    },
    finish() {
      if (out.isTTY) draw();
    },
  };
}

const { size, seed, today } = readArguments();
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  fail(
    'DATABASE_URL is not set. Set it to a PostgreSQL database (postgres://user:password@host:5432/db), ' +
      'or use `npm run dev`, which starts the embedded database and loads demo data.',
    1,
  );
}

const client = new pg.Client({ connectionString: databaseUrl });
try {
  await client.connect();
} catch (error) {
  fail(`cannot connect to DATABASE_URL: ${error instanceof Error ? error.message : String(error)}`, 1);
}
console.log(`Loading ${size} racing data (seed ${seed}, today ${today})`);
const started = performance.now();
const progress = progressReporter(process.stdout);
try {
  const report = await loadRacing(client, { size, seed, today }, (p) => progress.report(p));
  progress.finish();
  const total = Object.values(report.rows).reduce((sum, rows) => sum + rows, 0);
  console.log(`Loaded ${count(total)} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  progress.finish();
  fail(`load failed, nothing was changed: ${error instanceof Error ? error.message : String(error)}`, 1);
} finally {
  await client.end();
}
