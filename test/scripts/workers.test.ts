import { describe, expect, it } from 'vitest';
import { landedWorkers, workerBindings } from '../../scripts/workers';

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
