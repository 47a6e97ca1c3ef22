import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDevVars } from '../../scripts/dev-vars';
import { ROOT, landedWorkers } from '../../scripts/workers';
import { PUBLISHED_DEVELOPMENT_VALUES } from '#shared/development-values.ts';

// The Workers refuse, outside local development, every secret published in a .dev.vars.example
// (workers/shared/config.ts): the list they hold must be exactly those files' values.

/** Settings of the examples whose value is a name, not a secret. */
const NAMES = new Set(['ADMIN_USERNAME']);

describe('published development values', () => {
  it('the shared list holds every secret of every .dev.vars.example, and nothing else', () => {
    const published = new Set<string>();
    for (const worker of landedWorkers()) {
      const file = join(ROOT, 'workers', worker.name, '.dev.vars.example');
      if (!existsSync(file)) continue;
      for (const [name, value] of Object.entries(parseDevVars(readFileSync(file, 'utf8'))))
        if (!NAMES.has(name) && value) published.add(value);
    }
    expect(published.size).toBeGreaterThan(10);
    expect([...PUBLISHED_DEVELOPMENT_VALUES].sort()).toEqual([...published].sort());
  });
});
