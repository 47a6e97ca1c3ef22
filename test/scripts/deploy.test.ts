import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, landedWorkers, wranglerBin } from '../../scripts/workers';

const outdir = mkdtempSync(join(tmpdir(), 'dry-run-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

// A bundle that would not build (a Node built-in, a missing export) fails here, not at deploy time.
describe.each(landedWorkers())('wrangler deploy --dry-run: $name', (worker) => {
  it('bundles', { timeout: 60_000 }, () => {
    const run = spawnSync(wranglerBin(), ['deploy', '--dry-run', '--outdir', join(outdir, worker.name), '-c', worker.config], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(readFileSync(join(outdir, worker.name, 'index.js'), 'utf8').length).toBeGreaterThan(100);
  });
});
