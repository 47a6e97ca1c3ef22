import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The Durable Objects are thin hosts over their service's domain code, and the dependency runs one
// way: an object reaches its service only through the public modules the service names for it in
// package.json's `imports` (and deno.json's), never by a relative path into workers/<service>/src;
// the service reaches its objects only through its typed stubs.

const ROOT = join(import.meta.dirname, '..', '..');
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { imports: Record<string, string> };
const denoJson = JSON.parse(readFileSync(join(ROOT, 'deno.json'), 'utf8')) as { imports: Record<string, string> };

/** The public modules of the services, by name: `#migrate/jobs/step.ts` → `./workers/migrate/src/jobs/step.ts`. */
const PUBLIC_MODULES = Object.fromEntries(
  Object.entries(packageJson.imports).filter(([, target]) => /^\.\/workers\/(?!shared\/)[^/]+\/src\//.test(target)),
);

/** The shared code, reached by name from anywhere. */
const SHARED_NAMES = ['#shared/', '#d1/', '#durable-objects/'];

/** The job objects' bindings, and the one module of the service that may use them. */
const JOB_BINDINGS = ['MIGRATION_JOB', 'DISCIPLINE_REPAIR_JOB', 'IMPORT_JOB'];
const STUBS = 'workers/migrate/src/jobs/stubs.ts';
/** The mail service's one way to its mailbox objects (binding MAILBOX). */
const MAIL_STUBS = 'workers/mail/src/context.ts';

const SPECIFIER = /(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

/**
 * The imports of `file` (its text `text`) that leave durable-objects/ other than by a public module's
 * name, a shared name or a package: any relative path out of the folder, any unknown `#` name.
 */
function deepImports(file: string, text: string): string[] {
  const found: string[] = [];
  for (const [, specifier] of text.matchAll(SPECIFIER)) {
    if (specifier!.startsWith('.')) {
      const target = relative(ROOT, normalize(join(ROOT, dirname(file), specifier!)));
      if (!target.startsWith('durable-objects/')) found.push(`${file}: ${specifier}`);
    } else if (specifier!.startsWith('#')) {
      if (!(specifier! in PUBLIC_MODULES) && !SHARED_NAMES.some((name) => specifier!.startsWith(name))) found.push(`${file}: ${specifier}`);
    }
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

describe('imports of the Durable Objects', () => {
  it('finds a relative or unknown path out of the folder, and passes a public module, a sibling and a shared name', () => {
    const file = 'durable-objects/some-job.ts';
    expect(
      deepImports(
        file,
        [
          "import { openSource } from '../workers/migrate/src/engine/db.ts';",
          "import { migrationStep } from '../workers/migrate/src/jobs/migration.ts';",
          "import { x } from '../workers/mail/src/ai/jobs.ts';",
          "const lazy = await import('../workers/migrate/src/runs.ts');",
          "import { y } from '../scripts/dev.ts';",
          "import { z } from '#migrate/engine/db.ts';",
          "import { migrationStep } from '#migrate/jobs/migration.ts';",
          "import type { StepContext } from '#migrate/jobs/step.ts';",
          "import { JobLog } from './job-log.ts';",
          "import { failureText } from '#shared/pg-errors.ts';",
          "import * as schema from '#d1/migrate/schema.ts';",
          "import { DurableObject } from 'cloudflare:workers';",
        ].join('\n'),
      ),
    ).toEqual([
      `${file}: ../workers/migrate/src/engine/db.ts`,
      `${file}: ../workers/migrate/src/jobs/migration.ts`,
      `${file}: ../workers/mail/src/ai/jobs.ts`,
      `${file}: ../workers/migrate/src/runs.ts`,
      `${file}: ../scripts/dev.ts`,
      `${file}: #migrate/engine/db.ts`,
    ]);
  });

  it('package.json names each public module of a service, and deno.json names it the same way', () => {
    expect(Object.keys(PUBLIC_MODULES).sort()).toEqual([
      '#mail/mailbox/index.ts',
      '#migrate/jobs/discipline-repair.ts',
      '#migrate/jobs/imports.ts',
      '#migrate/jobs/migration.ts',
      '#migrate/jobs/step.ts',
    ]);
    for (const [name, target] of Object.entries(PUBLIC_MODULES)) {
      expect(denoJson.imports[name]).toBe(target);
      expect(() => readFileSync(join(ROOT, target))).not.toThrow();
    }
  });

  it('import nothing of a service but its public modules, and those by name', () => {
    const files = sourceFiles('durable-objects');
    expect(files).toEqual(
      expect.arrayContaining([
        'durable-objects/job-base.ts',
        'durable-objects/migration-job.ts',
        'durable-objects/discipline-repair-job.ts',
        'durable-objects/import-job.ts',
      ]),
    );
    expect(files).toContain('durable-objects/mail-user-context.ts');
    const deep = files.flatMap((file) => deepImports(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(deep).toEqual([]);
    // and each object does reach its service, by name
    for (const file of ['migration-job.ts', 'discipline-repair-job.ts', 'import-job.ts', 'mail-user-context.ts']) {
      expect(readFileSync(join(ROOT, 'durable-objects', file), 'utf8')).toMatch(/from '#(migrate|mail)\//);
    }
  });

  it('are reached by the service through its typed stubs only', () => {
    const uses = sourceFiles('workers/migrate/src')
      .filter((file) => file !== STUBS)
      .flatMap((file) => {
        const text = readFileSync(join(ROOT, file), 'utf8');
        return JOB_BINDINGS.filter((binding) => new RegExp(`\\.${binding}\\b`).test(text)).map((binding) => `${file}: ${binding}`);
      });
    expect(uses).toEqual([]);
    const stubs = readFileSync(join(ROOT, STUBS), 'utf8');
    for (const binding of JOB_BINDINGS) expect(stubs).toContain(`env.${binding}.get(env.${binding}.idFromName(`);
  });

  it("are reached by the mail service through its mailbox stub only, and the object's module is only exported", () => {
    const files = sourceFiles('workers/mail/src');
    const uses = files.filter((file) => file !== MAIL_STUBS && /\.MAILBOX\b/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(uses).toEqual([]);
    expect(readFileSync(join(ROOT, MAIL_STUBS), 'utf8')).toContain('env.MAILBOX.get(env.MAILBOX.idFromName(');
    // the service's types live in the service: the object's module is named only where the Worker exports its class
    const naming = files.filter((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(SPECIFIER)].some(([, specifier]) => specifier!.endsWith('/mail-user-context.ts')),
    );
    expect(naming).toEqual(['workers/mail/src/index.ts']);
  });
});
