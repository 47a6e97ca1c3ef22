import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// What each Worker's bundle can hold: the packages reached from its entry point (and so from the
// Durable Objects it exports), read from the import statements of the sources. SheetJS writes the
// tests' and the tools' spreadsheets; no Worker reads one with it (workers/migrate/src/imports/sheet/).

const ROOT = join(import.meta.dirname, '..', '..');
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { imports: Record<string, string> };
const NAMED = Object.entries(packageJson.imports).map(([name, target]) => [name.replace(/\*$/, ''), target.replace(/\*$/, '')] as const);
const SPECIFIER =
  /(?:^|\n|;)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

/** The files reached from `entry` and the packages they import (type-only imports left out). */
function reach(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (/^\s*(?:import|export)\s+type\s/.test(match[0].replace(/^[\n;]/, ''))) continue;
      const named = NAMED.find(([name]) => specifier.startsWith(name));
      let target: string | null = null;
      if (named) target = join(named[1], specifier.slice(named[0].length));
      else if (specifier.startsWith('.')) target = relative(ROOT, join(ROOT, dirname(file), specifier));
      if (target === null) {
        if (!specifier.startsWith('node:') && !specifier.startsWith('cloudflare:')) {
          packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
        }
        continue;
      }
      const path = [target, `${target}.ts`, `${target}.tsx`, join(target, 'index.ts')].find(
        (p) => /\.(ts|tsx)$/.test(p) && existsSync(join(ROOT, p)),
      );
      if (path) visit(path);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('packages in the Worker bundles', () => {
  it('the migrate Worker and its Durable Objects read spreadsheets without SheetJS', () => {
    const { files, packages } = reach('workers/migrate/src/index.ts');
    // The walk sees what the bundle holds: the sheet reader, the import job object, their packages.
    expect(files).toContain('workers/migrate/src/imports/sheet/index.ts');
    expect(files).toContain('durable-objects/import-job.ts');
    expect(packages).toContain('hono');
    expect(packages).not.toContain('@e965/xlsx');
  });

  it('no Worker imports SheetJS; the tools that write sheets do', () => {
    for (const service of ['auth', 'cms', 'form', 'mail', 'migrate', 'router', 'stats']) {
      expect([...reach(`workers/${service}/src/index.ts`).packages], service).not.toContain('@e965/xlsx');
    }
    expect(reach('scripts/migrate-example-sheets.ts').packages).toContain('@e965/xlsx');
  });
});
