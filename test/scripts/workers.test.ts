import { describe, expect, it } from 'vitest';
import { devStateDir, landedWorkers, workerBindings } from '../../scripts/workers';

describe('worker registry', () => {
  it('lists the router on 8787 and every landed service on its own port', () => {
    const workers = landedWorkers();
    expect(workers.at(-1)).toMatchObject({ name: 'router', port: 8787, config: 'wrangler.toml' });
    expect(new Set(workers.map((w) => w.port)).size).toBe(workers.length);
  });

  it('reads D1 bindings and required secrets from a wrangler.toml', () => {
    const bindings = workerBindings({
      name: 'router',
      config: 'test/scripts/fixtures/wrangler.toml',
      typesFile: '',
      port: 0,
      title: 'fixture',
    });
    expect(bindings).toEqual({
      d1: [
        { binding: 'DB', databaseName: 'fixture' },
        { binding: 'AUDIT', databaseName: undefined },
      ],
      requiredSecrets: ['DATABASE_URL', 'AUTH_CLIENT_SECRET'],
    });
  });
});

describe('dev runner', () => {
  it('never loads the wrangler package, whose SIGINT handler would exit before the Workers are stopped', async () => {
    const { build } = await import('esbuild');
    const root = new URL('../..', import.meta.url).pathname;
    const result = await build({
      entryPoints: [`${root}scripts/dev.ts`],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const packages = Object.values(result.metafile.outputs).flatMap((output) =>
      output.imports.filter((i) => i.external).map((i) => i.path),
    );
    expect(packages.length).toBeGreaterThan(0);
    expect(packages.filter((name) => name === 'wrangler' || name.startsWith('wrangler/'))).toEqual([]);
  });

  it('keeps each Worker’s local state in its own folder', () => {
    expect(devStateDir('cms')).not.toBe(devStateDir('auth'));
    expect(devStateDir('cms').endsWith('.wrangler/state/cms')).toBe(true);
  });
});
