import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The Durable Objects are thin hosts over their service's domain code, and the dependency runs one
// way: an object imports only the public modules its service defines for it, never a deep path of
// workers/<service>/src; the service reaches its objects only through its typed stubs.

const ROOT = join(import.meta.dirname, '..', '..');

/** The modules of a service that its objects may import (relative to the repository). */
const PUBLIC_MODULES = new Set([
  'workers/migrate/src/jobs/step.ts',
  'workers/migrate/src/jobs/migration.ts',
  'workers/migrate/src/jobs/discipline-repair.ts',
  'workers/migrate/src/jobs/imports.ts',
  'workers/mail/src/mailbox/index.ts',
]);

/** The job objects' bindings, and the one module of the service that may use them. */
const JOB_BINDINGS = ['MIGRATION_JOB', 'DISCIPLINE_REPAIR_JOB', 'IMPORT_JOB'];
const STUBS = 'workers/migrate/src/jobs/stubs.ts';
/** The mail service's one way to its mailbox objects (binding MAILBOX). */
const MAIL_STUBS = 'workers/mail/src/context.ts';

const SPECIFIER = /(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

/** The relative imports of `file` (its text `text`) that reach a service's sources other than its public modules. */
function deepImports(file: string, text: string): string[] {
  const found: string[] = [];
  for (const [, specifier] of text.matchAll(SPECIFIER)) {
    if (!specifier!.startsWith('.')) continue;
    const target = relative(ROOT, normalize(join(ROOT, dirname(file), specifier!)));
    if (/^workers\/[^/]+\/src\//.test(target) && !PUBLIC_MODULES.has(target)) found.push(`${file}: ${specifier}`);
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
  it('finds a deep import, and passes a public module, a sibling and a shared name', () => {
    const file = 'durable-objects/some-job.ts';
    expect(
      deepImports(
        file,
        [
          "import { openSource } from '../workers/migrate/src/engine/db.ts';",
          "import type { RunPlan } from '../workers/migrate/src/engine/types.ts';",
          "import { importStep } from '../workers/migrate/src/imports/import-step.ts';",
          "import { x } from '../workers/mail/src/ai/jobs.ts';",
          "const lazy = await import('../workers/migrate/src/runs.ts');",
          "import { migrationStep } from '../workers/migrate/src/jobs/migration.ts';",
          "import type { StepContext } from '../workers/migrate/src/jobs/step.ts';",
          "import { JobLog } from './job-log.ts';",
          "import { failureText } from '#shared/pg-errors.ts';",
          "import * as schema from '#d1/migrate/schema.ts';",
        ].join('\n'),
      ),
    ).toEqual([
      `${file}: ../workers/migrate/src/engine/db.ts`,
      `${file}: ../workers/migrate/src/engine/types.ts`,
      `${file}: ../workers/migrate/src/imports/import-step.ts`,
      `${file}: ../workers/mail/src/ai/jobs.ts`,
      `${file}: ../workers/migrate/src/runs.ts`,
    ]);
  });

  it('import nothing of a service but its public modules', () => {
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
    for (const module of PUBLIC_MODULES) expect(() => readFileSync(join(ROOT, module))).not.toThrow();
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
