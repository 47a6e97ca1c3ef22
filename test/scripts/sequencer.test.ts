import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILE_SECONDS } from '../file-durations';
import { orderLongestFirst, type Timed } from '../sequencer';

const ROOT = join(import.meta.dirname, '..', '..');

const file = (project: string, seconds: number, shared = false, group = 0): Timed<string> => ({
  item: `${project}:${seconds}`,
  project,
  seconds,
  shared,
  group,
});

describe('the order of test files', () => {
  it('puts the longest files first', () => {
    const order = orderLongestFirst([file('a', 3), file('b', 40), file('a', 12), file('c', 1)], new Set());
    expect(order).toEqual(['b:40', 'a:12', 'a:3', 'c:1']);
  });

  it("keeps a shared-workerd project's files together, placed by their sum, longest first inside", () => {
    const order = orderLongestFirst(
      [file('alone', 18), file('cms', 8, true), file('other', 12), file('cms', 9, true), file('cms', 2, true)],
      new Set(),
    );
    expect(order).toEqual(['cms:9', 'cms:8', 'cms:2', 'alone:18', 'other:12']);
  });

  it("never puts two files of an exclusive project next to each other, nor inside a shared project's files", () => {
    const order = orderLongestFirst(
      [file('browser', 16), file('browser', 15), file('browser', 14), file('cms', 7, true), file('cms', 6, true), file('mail', 5)],
      new Set(['browser']),
    );
    expect(order).toEqual(['browser:16', 'cms:7', 'cms:6', 'browser:15', 'mail:5', 'browser:14']);
    for (let i = 1; i < order.length; i++) expect(order[i]!.startsWith('browser') && order[i - 1]!.startsWith('browser')).toBe(false);
  });

  it('runs a lower sequence group first, whatever its files take', () => {
    const order = orderLongestFirst([file('late', 90, false, 1), file('early', 1, false, 0), file('early', 2, false, 0)], new Set());
    expect(order).toEqual(['early:2', 'early:1', 'late:90']);
  });

  it('loses no file and adds none', () => {
    const input = Array.from({ length: 60 }, (_, i) => file(['browser', 'cms', 'mail', 'auth'][i % 4]!, (i * 37) % 23, i % 4 === 1));
    const order = orderLongestFirst(input, new Set(['browser']));
    expect([...order].sort()).toEqual(input.map((entry) => entry.item).sort());
  });
});

describe('the committed file times', () => {
  it('name only test files that exist', () => {
    const missing = Object.keys(FILE_SECONDS).filter((path) => !existsSync(join(ROOT, path)));
    expect(missing).toEqual([]);
  });

  it('hold a number of seconds for each', () => {
    for (const [path, seconds] of Object.entries(FILE_SECONDS)) expect(seconds, path).toBeGreaterThanOrEqual(0);
    expect(Object.keys(FILE_SECONDS).length).toBeGreaterThan(100);
  });
});

describe('every test project', () => {
  // vitest runs a project of `fileParallelism: false` after all the others, on one slot while the
  // other idles; a project whose files must not overlap uses test/support/one-at-a-time.ts instead.
  it.each(
    readdirSync(join(ROOT, 'test'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, 'test', entry.name, 'vitest.config.ts')))
      .map((entry) => entry.name),
  )('%s runs beside the others (no fileParallelism: false, no maxWorkers of its own)', (name) => {
    const text = readFileSync(join(ROOT, 'test', name, 'vitest.config.ts'), 'utf8').replace(/\/\/.*$/gm, '');
    expect(text).not.toMatch(/fileParallelism:\s*false/);
    expect(text).not.toMatch(/\bmaxWorkers:/);
  });
});
