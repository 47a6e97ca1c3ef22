import { spawnSync } from 'node:child_process';

/** Runs a psql script on one connection to `url` (results discarded) and returns what psql printed. */
function runPsql(url: string, script: string): string {
  const run = spawnSync('psql', ['-X', '-q', '-tA', '-o', '/dev/null', url], {
    input: script,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`psql failed: ${run.stderr}`);
  return run.stdout;
}

/**
 * Server time of each statement of `script`, run in one psql session with `\timing`: the figure for
 * a warm connection. Every statement is timed, set-up statements included.
 */
export function psqlTimings(url: string, script: string): number[] {
  return [...runPsql(url, `\\timing on\n${script}`).matchAll(/Time: ([\d.]+) ms/g)].map((m) => Number(m[1]));
}

/**
 * Wall-clock time of `script` in a fresh psql process and connection, `runs` times after `warmup`
 * untimed runs: what a Worker opening a connection per request is compared with.
 */
export function psqlWallTimes(url: string, script: string, runs: number, warmup = 3): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs + warmup; i++) {
    const started = performance.now();
    runPsql(url, script);
    if (i >= warmup) times.push(performance.now() - started);
  }
  return times;
}

/** A statement with its parameters written in, for psql. */
export function inlined(query: { sql: string; params: unknown[] }): string {
  let text = query.sql;
  for (let i = query.params.length; i >= 1; i--) {
    const value = query.params[i - 1];
    const literal =
      value === null || value === undefined ? 'NULL' : typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`;
    text = text.split(`$${i}`).join(literal);
  }
  return text;
}
