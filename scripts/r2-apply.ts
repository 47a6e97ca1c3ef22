import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { ROOT, wranglerBin } from './workers.ts';

// Applies the bucket rules of r2/ with wrangler:
//   racing-media (CMS binding MEDIA):       r2/cors.json and r2/lifecycle.json
//   migrate-sheets (migrate binding SHEETS): r2/migrate-sheets.lifecycle.json
//   npx tsx scripts/r2-apply.ts [--dry-run] [--bucket NAME] [--sheets-bucket NAME] [--origins https://a,https://b]
// The CORS rule's "$CMS_EDITOR_ORIGINS" stands for the editor origins of workers/cms/wrangler.toml
// (or --origins). --dry-run prints the commands and the files they would send, and changes nothing.

const CMS_CONFIG = 'workers/cms/wrangler.toml';
const MIGRATE_CONFIG = 'workers/migrate/wrangler.toml';
export const ORIGINS_PLACEHOLDER = '$CMS_EDITOR_ORIGINS';

type CorsRule = { allowed: { origins: string[]; methods: string[]; headers?: string[] }; exposeHeaders?: string[]; maxAgeSeconds?: number };

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

type WranglerConfig = { vars?: Record<string, unknown>; r2_buckets?: { binding: string; bucket_name: string }[] };

const readConfig = (file: string) => parse(readFileSync(join(ROOT, file), 'utf8')) as WranglerConfig;

function bucketName(config: WranglerConfig, file: string, binding: string): string {
  const bucket = config.r2_buckets?.find((b) => b.binding === binding)?.bucket_name;
  if (!bucket) throw new Error(`${file} has no r2_buckets entry with binding ${binding}`);
  return bucket;
}

/** The migration app's import-sheet bucket, from its wrangler.toml (binding SHEETS). */
export function migrateSheetsBucket(): string {
  return bucketName(readConfig(MIGRATE_CONFIG), MIGRATE_CONFIG, 'SHEETS');
}

/** The media bucket's name and the editor origins, from the CMS Worker's wrangler.toml. */
export function cmsMediaSettings(): { bucket: string; origins: string[] } {
  const config = readConfig(CMS_CONFIG);
  const bucket = bucketName(config, CMS_CONFIG, 'MEDIA');
  const origins = String(config.vars?.CMS_EDITOR_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return { bucket, origins };
}

/** r2/cors.json with the placeholder replaced by the editor origins. */
export function corsPolicy(origins: string[]): { rules: CorsRule[] } {
  const policy = JSON.parse(readFileSync(join(ROOT, 'r2/cors.json'), 'utf8')) as { rules: CorsRule[] };
  for (const rule of policy.rules) {
    rule.allowed.origins = rule.allowed.origins.flatMap((o) => (o === ORIGINS_PLACEHOLDER ? origins : [o]));
    if (!rule.allowed.origins.length) throw new Error('The CORS rule allows no origin: set CMS_EDITOR_ORIGINS or pass --origins');
  }
  return policy;
}

const readRules = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as { rules: unknown[] };

/** The media bucket's rules (CORS and lifecycle) and the sheets bucket's (lifecycle only). */
export function plan(args: string[]) {
  const settings = cmsMediaSettings();
  const bucket = option(args, '--bucket') ?? settings.bucket;
  const originsArg = option(args, '--origins');
  const origins = originsArg
    ? originsArg
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean)
    : settings.origins;
  const cors = corsPolicy(origins);
  const lifecycle = readRules('r2/lifecycle.json');
  const sheets = {
    bucket: option(args, '--sheets-bucket') ?? migrateSheetsBucket(),
    lifecycle: readRules('r2/migrate-sheets.lifecycle.json'),
  };
  return { bucket, cors, lifecycle, sheets };
}

function main(args: string[]) {
  const dryRun = args.includes('--dry-run');
  const { bucket, cors, lifecycle, sheets } = plan(args);
  const dir = mkdtempSync(join(tmpdir(), 'r2-rules-'));
  try {
    const corsFile = join(dir, 'cors.json');
    const lifecycleFile = join(dir, 'lifecycle.json');
    const sheetsLifecycleFile = join(dir, 'migrate-sheets.lifecycle.json');
    writeFileSync(corsFile, JSON.stringify(cors, null, 2));
    writeFileSync(lifecycleFile, JSON.stringify(lifecycle, null, 2));
    writeFileSync(sheetsLifecycleFile, JSON.stringify(sheets.lifecycle, null, 2));
    const commands = [
      ['r2', 'bucket', 'cors', 'set', bucket, '--file', corsFile, '--force'],
      ['r2', 'bucket', 'lifecycle', 'set', bucket, '--file', lifecycleFile, '--force'],
      ['r2', 'bucket', 'lifecycle', 'set', sheets.bucket, '--file', sheetsLifecycleFile, '--force'],
    ];
    for (const command of commands) {
      if (dryRun) {
        console.log(`would run: wrangler ${command.join(' ')}`);
        console.log(readFileSync(command[6]!, 'utf8'));
        continue;
      }
      const run = spawnSync(wranglerBin(), command, { cwd: ROOT, stdio: 'inherit' });
      if (run.status !== 0) throw new Error(`wrangler ${command.join(' ')} failed`);
    }
    console.log(
      dryRun
        ? `Dry run: nothing changed for buckets ${bucket} and ${sheets.bucket}`
        : `Applied CORS and lifecycle rules to bucket ${bucket}, and the lifecycle rule to bucket ${sheets.bucket}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
