import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

// A setup file: the test files of a project that lists it run one at a time, each beside files of
// other projects. Such a file starts Chromium and workerd of its own; two of them at once on two
// cores slow each other past their limits. vitest's own `fileParallelism: false` would instead run
// the whole project after everything else, alone, leaving the other worker slot idle for minutes.
// test/sequencer.ts keeps these files apart in the order, so a file seldom waits here.

/** The lock of this run: the worker processes of one run share their parent, the vitest process. */
const LOCK = join(tmpdir(), `racing-tests-${process.ppid}-one-at-a-time`);
const OWNER = join(LOCK, 'pid');
/** Waiting is not the file's own time: long enough for the longest file of the project on a busy machine. */
const WAIT_LIMIT_MS = 15 * 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock (a directory: its creation is atomic), or removes it when its holder is gone. */
function tryLock(): boolean {
  try {
    mkdirSync(LOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(OWNER, 'utf8'));
    } catch {
      // Its holder has not written its pid yet.
      return false;
    }
    if (Number.isInteger(owner) && !alive(owner)) rmSync(LOCK, { recursive: true, force: true });
    return false;
  }
  writeFileSync(OWNER, String(process.pid));
  return true;
}

beforeAll(async () => {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!tryLock()) {
    if (Date.now() > deadline) throw new Error(`another test file held ${LOCK} for ${WAIT_LIMIT_MS / 60_000} minutes`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, WAIT_LIMIT_MS + 10_000);

afterAll(() => {
  try {
    if (readFileSync(OWNER, 'utf8') === String(process.pid)) rmSync(LOCK, { recursive: true, force: true });
  } catch {
    // Not held (beforeAll failed).
  }
});
