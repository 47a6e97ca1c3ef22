import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { imports: Record<string, string> };
const denoJson = JSON.parse(readFileSync(join(ROOT, 'deno.json'), 'utf8')) as { imports: Record<string, string> };

/** The shared code reached by name: `#shared/…`, `#d1/…`, `#durable-objects/…`. */
const NAMED: Record<string, string> = { 'workers/shared/': '#shared/', 'd1/': '#d1/', 'durable-objects/': '#durable-objects/' };

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(entry.name) ? [path] : [];
  });
}

const SPECIFIER = /(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

describe('imports by name', () => {
  it('package.json maps each name, and deno.json maps it the same way', () => {
    for (const [dir, name] of Object.entries(NAMED)) {
      expect(packageJson.imports[`${name}*`]).toBe(`./${dir}*`);
      expect(denoJson.imports[name]).toBe(`./${dir}`);
    }
  });

  it('no file outside the shared code reaches it by a relative path, and every named import exists', () => {
    const files = ['workers', 'durable-objects', 'd1', 'test', 'scripts', 'bench', 'deno'].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(300);
    const relativeReaches: string[] = [];
    const missing: string[] = [];
    for (const file of files) {
      for (const [, specifier] of readFileSync(join(ROOT, file), 'utf8').matchAll(SPECIFIER)) {
        if (specifier!.startsWith('.')) {
          const target = relative(ROOT, normalize(join(ROOT, dirname(file), specifier!)));
          const shared = Object.keys(NAMED).find((dir) => `${target}/`.startsWith(dir));
          if (shared && !file.startsWith(shared)) relativeReaches.push(`${file}: ${specifier}`);
        }
        const name = Object.entries(NAMED).find(([, alias]) => specifier!.startsWith(alias));
        if (name) {
          const path = name[0] + specifier!.slice(name[1].length);
          try {
            readFileSync(join(ROOT, path));
          } catch {
            missing.push(`${file}: ${specifier}`);
          }
        }
      }
    }
    expect(relativeReaches).toEqual([]);
    expect(missing).toEqual([]);
  });
});
