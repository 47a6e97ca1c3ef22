import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const WATCHDOG = fileURLToPath(new URL('./dev-watchdog.mjs', import.meta.url));

/** The watchdog's own grace for its command (dev-watchdog.mjs), and a margin for it to act. */
const STOP_WAIT_MS = 8_000;

/**
 * Starts `command` for the dev runner under dev-watchdog.mjs: in a process group of its own (so
 * Ctrl-C in the runner's terminal reaches the runner only, which stops it in order), which the
 * watchdog ends when this process is gone, SIGKILL and crashes included. Output comes through
 * the returned process's stdout and stderr.
 */
export function spawnWatched(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): ChildProcessWithoutNullStreams {
  // stdin is the watchdog's line to this process: it is never written, and closes when this process ends.
  return spawn(process.execPath, [WATCHDOG, command, ...args], { cwd: options.cwd, env: options.env, detached: true, stdio: 'pipe' });
}

/** Stops a watched command and everything it started: the watchdog's stop, then a kill of its group. */
export function stopWatched(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) {
    sweepWatched(child);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      sweepWatched(child);
      resolve();
    };
    const timer = setTimeout(done, STOP_WAIT_MS);
    child.once('exit', done);
    child.kill('SIGTERM');
  });
}

/** Kills what a watched command that ended by itself left in its group (its workerd, say). */
export function sweepWatched(child: ChildProcessWithoutNullStreams): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // nothing left in the group
  }
}
