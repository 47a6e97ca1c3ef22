import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// What every test project inherits: a project named by its own config file does not take the root
// config's test options, so each spreads these first and may only raise them.

/** A test's limit: generous, since the suite runs two files at a time on two cores, often beside a dev stack. */
export const TEST_TIMEOUT_MS = 20_000;
/** A hook's limit: setup signs in through the real auth service and applies migrations. */
export const HOOK_TIMEOUT_MS = 60_000;

export const PROJECT_TEST_DEFAULTS = { testTimeout: TEST_TIMEOUT_MS, hookTimeout: HOOK_TIMEOUT_MS } as const;

/**
 * For the Worker projects whose test files hold no state that another file could trip over (their
 * rows, accounts and objects are their own, nothing in module scope counts across files): the files
 * take turns in one workerd per worker slot instead of each starting its own. Starting workerd with
 * a Worker's modules costs seconds a file on two cores, often more than the file's tests.
 */
export const SHARED_WORKERD = { isolate: false } as const;

/**
 * The packages the given folders import (each `import … from 'package'` that is not `import type`),
 * pre-bundled by vite's dependency optimizer for a Worker project. Each file of an isolated Worker
 * project starts a workerd that imports the Worker's whole module graph through vitest's module
 * runner, one module per round trip to Node: hono, zod, drizzle and the AI SDK are hundreds of
 * modules. Bundled, each package is one module (shared chunks keep one copy of each class): the
 * set-up of a file (setupFiles, which import the Worker) measured 35–65 % shorter (migrate, auth, mail).
 */
export function prebundled(root: string, folders: readonly string[], options: { exclude?: readonly string[] } = {}) {
  // TEST_PREBUNDLE=off: every module on its own, as vitest loads them by default (to compare, or to rule the bundles out).
  if (process.env.TEST_PREBUNDLE === 'off') return {};
  const packages = new Set<string>();
  const scan = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') scan(path);
      } else if (/\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts') && !NODE_SIDE.has(entry.name)) {
        for (const [, specifier] of readFileSync(path, 'utf8').matchAll(VALUE_IMPORT)) packages.add(specifier!);
      }
    }
  };
  for (const folder of folders) scan(join(root, folder));
  const exclude = new Set(options.exclude ?? []);
  const include = [...packages]
    .filter((name) => !/^(node|cloudflare|workerd):/.test(name) && name !== 'vitest' && !exclude.has(name))
    .sort();
  return { optimizer: { ssr: { enabled: true, include } } };
}

/** A test project's files that run in Node, not in workerd. */
const NODE_SIDE = new Set(['vitest.config.ts', 'global-setup.ts']);

/** `import x from 'pkg'`, `import { a } from 'pkg/sub'`, `export … from 'pkg'`: not `import type`, not relative or `#` paths. */
const VALUE_IMPORT = /^(?:import(?!\s+type\b)|export(?!\s+type\b))[^;'"]*?\bfrom\s+'([^'./#][^']*)'/gm;
