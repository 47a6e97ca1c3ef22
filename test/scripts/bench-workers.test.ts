import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Each bench section starts its Worker from a wrangler config, some with an entry of their own
// (bench/worker/*.ts). wrangler does not start a Worker whose entry lacks a Durable Object class
// its config binds, and the section then waits for it: this checks every pair without starting one.

const ROOT = new URL('../..', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const quoted = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].map((m) => m[1]!);

/** The Durable Object classes a wrangler config binds in this Worker (not those of other scripts). */
function boundClasses(config: string): string[] {
  return read(config)
    .split(/^\[\[/m)
    .filter((block) => block.startsWith('durable_objects.bindings]]') && !/^\s*script_name\s*=/m.test(block))
    .flatMap((block) => quoted(block, /^\s*class_name\s*=\s*"([^"]+)"/gm));
}

/** Every (config, entry) a bench section starts: its `entrypoint`, else the config's `main`. */
function benchWorkers(): { section: string; config: string; entry: string }[] {
  return readdirSync(join(ROOT, 'bench'))
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => {
      const source = read(`bench/${file}`);
      const constants = Object.fromEntries([...source.matchAll(/const (\w+) = '([^']+\.toml)'/g)].map((m) => [m[1]!, m[2]!]));
      const configs = [
        ...quoted(source, /config(?::| =) join\(ROOT, '([^']+\.toml)'\)/g),
        ...quoted(source, /config: join\(ROOT, (\w+)\)/g).map((name) => constants[name]!),
      ];
      const entry = quoted(source, /entrypoint: join\(ROOT, '([^']+)'\)/g)[0];
      return configs.map((config) => {
        const main = quoted(read(config), /^main\s*=\s*"([^"]+)"/gm)[0]!;
        return { section: file, config, entry: entry ?? join(dirname(config), main) };
      });
    });
}

describe('bench Workers', () => {
  const workers = benchWorkers();

  it('finds the Workers the sections start', () => {
    expect(workers.map((w) => w.entry)).toEqual(
      expect.arrayContaining(['bench/worker/auth.ts', 'bench/worker/cms.ts', 'bench/worker/migrate.ts']),
    );
  });

  it.each(workers.map((w) => [w.section, w] as const))(
    '%s: the entry exports every Durable Object class its config binds',
    (_, { config, entry }) => {
      const source = read(entry);
      for (const name of boundClasses(config))
        expect(source, `${entry} (config ${config})`).toMatch(new RegExp(`export (\\{[^}]*\\b${name}\\b[^}]*\\}|class ${name}\\b)`));
    },
  );
});
