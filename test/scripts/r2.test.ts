import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PENDING_PREFIX } from '../../workers/cms/src/media/keys';
import { cmsMediaSettings, migrateSheetsBucket, ORIGINS_PLACEHOLDER, plan } from '../../scripts/r2-apply';
import { ROOT, wranglerBin } from '../../scripts/workers';

const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));
// The migration app's upload prefix, read from its source (importing it pulls in the Worker's types).
const TEMP_PREFIX = /export const TEMP_PREFIX = '([^']+)'/.exec(
  readFileSync(join(ROOT, 'workers/migrate/src/imports/storage.ts'), 'utf8'),
)?.[1];

describe('r2/cors.json', () => {
  const cors = read('r2/cors.json');

  it('is in the R2 API format wrangler sends (a rules array, lower-case keys under allowed)', () => {
    expect(cors.CORSRules).toBeUndefined();
    expect(Array.isArray(cors.rules)).toBe(true);
    for (const rule of cors.rules) expect(Object.keys(rule)).not.toContain('AllowedOrigins');
  });

  it('lets the editor origins PUT with a content type, exposes ETag, and caches the preflight', () => {
    const [rule] = cors.rules;
    expect(rule.allowed.origins).toEqual([ORIGINS_PLACEHOLDER]);
    expect(rule.allowed.methods).toEqual(['PUT']);
    expect(rule.allowed.headers).toEqual(['content-type']);
    expect(rule.exposeHeaders).toContain('ETag');
    expect(rule.maxAgeSeconds).toBeGreaterThan(0);
  });
});

describe('r2/lifecycle.json', () => {
  const lifecycle = read('r2/lifecycle.json');

  it('expires objects under the pending prefix after a day and aborts stale multipart uploads', () => {
    expect(lifecycle.rules).toHaveLength(1);
    const [rule] = lifecycle.rules;
    expect(rule.enabled).toBe(true);
    expect(rule.conditions.prefix).toBe(PENDING_PREFIX);
    expect(rule.deleteObjectsTransition.condition).toEqual({ type: 'Age', maxAge: 86_400 });
    expect(rule.abortMultipartUploadsTransition.condition).toEqual({ type: 'Age', maxAge: 86_400 });
  });
});

describe('r2/migrate-sheets.lifecycle.json', () => {
  const lifecycle = read('r2/migrate-sheets.lifecycle.json');

  it('has the shape of r2/lifecycle.json', () => {
    const media = read('r2/lifecycle.json');
    expect(Object.keys(lifecycle)).toEqual(Object.keys(media));
    expect(Object.keys(lifecycle.rules[0]).sort()).toEqual(Object.keys(media.rules[0]).sort());
  });

  it('expires import uploads under tmp/ after a day and aborts stale multipart uploads', () => {
    expect(lifecycle.rules).toHaveLength(1);
    const [rule] = lifecycle.rules;
    expect(rule.enabled).toBe(true);
    expect(rule.conditions.prefix).toBe(TEMP_PREFIX);
    expect(rule.conditions.prefix).toBe('tmp/');
    expect(rule.deleteObjectsTransition.condition).toEqual({ type: 'Age', maxAge: 86_400 });
    expect(rule.abortMultipartUploadsTransition.condition).toEqual({ type: 'Age', maxAge: 86_400 });
  });
});

describe('scripts/r2-apply.ts', () => {
  it('fills in the CMS editor origins and the media bucket from workers/cms/wrangler.toml', () => {
    const settings = cmsMediaSettings();
    expect(settings.bucket).toBe('racing-media');
    const { bucket, cors } = plan([]);
    expect(bucket).toBe('racing-media');
    expect(cors.rules[0]!.allowed.origins).toEqual(settings.origins);
    expect(settings.origins.length).toBeGreaterThan(0);
  });

  it('reads the sheets bucket from workers/migrate/wrangler.toml (binding SHEETS) and gives it its lifecycle rule only', () => {
    expect(migrateSheetsBucket()).toBe('migrate-sheets');
    const { sheets } = plan([]);
    expect(sheets.bucket).toBe('migrate-sheets');
    expect(sheets.lifecycle).toEqual(read('r2/migrate-sheets.lifecycle.json'));
    expect(plan(['--sheets-bucket', 'sheets-staging']).sheets.bucket).toBe('sheets-staging');
  });

  it('takes --bucket and --origins', () => {
    const { bucket, cors } = plan(['--bucket', 'media-staging', '--origins', 'https://editor.example, https://desk.example']);
    expect(bucket).toBe('media-staging');
    expect(cors.rules[0]!.allowed.origins).toEqual(['https://editor.example', 'https://desk.example']);
  });

  it('--dry-run prints the three wrangler commands and their files, and changes nothing', { timeout: 30_000 }, () => {
    const run = spawnSync(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['scripts/r2-apply.ts', '--dry-run', '--origins', 'https://editor.example'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/would run: wrangler r2 bucket cors set racing-media --file \S+cors\.json --force/);
    expect(run.stdout).toMatch(/would run: wrangler r2 bucket lifecycle set racing-media --file \S+lifecycle\.json --force/);
    expect(run.stdout).toContain('"https://editor.example"');
    expect(run.stdout).toMatch(
      /would run: wrangler r2 bucket lifecycle set migrate-sheets --file \S+migrate-sheets\.lifecycle\.json --force/,
    );
    expect(run.stdout).not.toMatch(/r2 bucket cors set migrate-sheets/);
    expect(run.stdout).toContain('"prefix": "pending/"');
    expect(run.stdout).toContain('"prefix": "tmp/"');
    expect(run.stdout).toContain('Dry run: nothing changed');
  });

  it.each([['cors'], ['lifecycle']])(
    'uses flags the installed wrangler has: r2 bucket %s set --file --force',
    { timeout: 30_000 },
    (what) => {
      const run = spawnSync(wranglerBin(), ['r2', 'bucket', what, 'set', '--help'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('--file');
      expect(run.stdout).toContain('--force');
    },
  );
});
