import { writeStylesheetCopies } from '../scripts/asset-manifest.ts';
import { racingToday } from '../scripts/racing-today.ts';
import { loadRacing, racingDatasetInfo } from '../scripts/racing/load.ts';
import { startRelay } from '../scripts/relay.ts';
import { benchAuth } from './auth.ts';
import { benchCmsMedia } from './cms-media.ts';
import { benchCmsStories } from './cms-stories.ts';
import type { BenchContext } from './context.ts';
import { benchForm } from './form.ts';
import { benchLoad } from './load/index.ts';
import { benchMail } from './mail.ts';
import { benchMailAi } from './mail-ai.ts';
import { benchMailReading } from './mail-reading.ts';
import { benchStats } from './meeting-stats.ts';
import { benchMigrate } from './migrate.ts';
import { benchMigrateImports } from './migrate-imports.ts';
import { benchPlatform } from './platform.ts';
import { benchRuntimeMemory } from './runtime-memory.ts';
import { benchDatabaseUrl } from './postgres.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);

const OPTIONS_WITH_VALUE = new Set([
  '--duration',
  '--connections',
  '--timeout',
  '--soak',
  '--soak-connections',
  '--services',
  '--migrate-rows',
]);

/** Each section prints its own figures; `npm run bench -- stats form` runs only those named. */
const SECTIONS: Record<string, (ctx: BenchContext) => Promise<void>> = {
  platform: benchPlatform,
  auth: benchAuth,
  stats: benchStats,
  form: benchForm,
  'cms-stories': benchCmsStories,
  'cms-media': benchCmsMedia,
  migrate: benchMigrate,
  'migrate-imports': benchMigrateImports,
  mail: benchMail,
  'mail-ai': benchMailAi,
  'mail-reading': benchMailReading,
  load: benchLoad,
  'runtime-memory': benchRuntimeMemory,
};

/** Sections that fill their own tables and need no racing `bench` data. */
const OWN_DATA = new Set(['migrate']);

/** Sections that need no racing database (they start what they measure themselves). */
const WITHOUT_DATABASE = new Set(['mail', 'mail-ai', 'mail-reading', 'load', 'runtime-memory']);

async function ensureBenchData(url: string): Promise<string> {
  const info = await racingDatasetInfo(url);
  if (info?.size === 'bench' && !process.argv.includes('--reload')) {
    console.log(`• bench data anchored on ${info.today} already loaded (--reload to load again)`);
    return info.today;
  }
  const today = racingToday();
  console.log(`• loading bench data anchored on ${today} (once; a few minutes)…`);
  const { elapsedMs } = await loadRacing(url, { size: 'bench', today });
  console.log(`• bench data loaded in ${(elapsedMs / 1000).toFixed(0)} s`);
  return today;
}

async function main() {
  // The Workers serve the shared stylesheet's git-ignored copies (scripts/asset-manifest.ts).
  writeStylesheetCopies();
  // Options that take a value (the load section's): the value is not a section's name.
  const args = process.argv.slice(2);
  const named = args.filter((arg, i) => !arg.startsWith('--') && !OPTIONS_WITH_VALUE.has(args[i - 1] ?? ''));
  const unknown = named.filter((name) => !(name in SECTIONS));
  if (unknown.length) throw new Error(`Unknown bench section(s) ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`);
  if (named.length && named.every((name) => WITHOUT_DATABASE.has(name))) {
    for (const name of named) await SECTIONS[name]!({ url: '', relay: '', runs: RUNS, today: racingToday() });
    return;
  }
  const url = await benchDatabaseUrl();
  // The migration bench brings its own tables: alone, it needs no racing bench data.
  const today = named.length > 0 && named.every((name) => OWN_DATA.has(name)) ? racingToday() : await ensureBenchData(url);
  // The bench server only (its second database, the migration bench's source, is on the same host:port).
  const relay = await startRelay({ allow: [url] });
  try {
    for (const [name, section] of Object.entries(SECTIONS)) {
      if (named.length && !named.includes(name)) continue;
      await section({ url, relay: relay.address, runs: RUNS, today });
    }
  } finally {
    await relay.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
