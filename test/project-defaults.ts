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
