import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../project-defaults';

// A project named by its own config file does not inherit the root config's test options, so a
// project that forgets the shared defaults runs with vitest's 5 s limit and fails on a busy machine.

const ROOT = join(import.meta.dirname, '..', '..');
const projects = readdirSync(join(ROOT, 'test'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && readdirSync(join(ROOT, 'test', entry.name)).includes('vitest.config.ts'))
  .map((entry) => entry.name);

describe('every test project', () => {
  it('exists as the root config lists them', () => {
    expect(projects.length).toBeGreaterThanOrEqual(10);
  });

  it.each(projects)('%s spreads the shared time limits first and only raises them', (name) => {
    const text = readFileSync(join(ROOT, 'test', name, 'vitest.config.ts'), 'utf8');
    const test = /\btest:\s*\{([\s\S]*)\}\s*,?\s*\}\);?\s*$/.exec(text)?.[1] ?? '';
    expect(test.trimStart().startsWith('...PROJECT_TEST_DEFAULTS')).toBe(true);
    for (const [, key, value] of test.matchAll(/\b(testTimeout|hookTimeout):\s*([\d_]+)/g)) {
      const limit = Number(value!.replaceAll('_', ''));
      expect(limit, `${name} ${key}`).toBeGreaterThanOrEqual(key === 'testTimeout' ? TEST_TIMEOUT_MS : HOOK_TIMEOUT_MS);
    }
  });
});
