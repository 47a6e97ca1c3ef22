import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** How often the runner looks whether what launched it is still there. */
const POLL_MS = 500;

/**
 * The processes that launched this one as one job — `npm run dev` → sh → tsx → scripts/dev.ts:
 * its parent, and the further ancestors in its own process group (a terminal's job is one
 * group; the shell the job was started from is not in it). Read once from `ps`; only the parent
 * when `ps` cannot tell.
 */
export function launchers(): number[] {
  const table = new Map<number, { ppid: number; pgid: number }>();
  const ps = spawnSync('ps', ['-A', '-o', 'pid=,ppid=,pgid='], { encoding: 'utf8' });
  for (const line of (ps.stdout ?? '').split('\n')) {
    const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number);
    if (pid && ppid !== undefined && pgid !== undefined) table.set(pid, { ppid, pgid });
  }
  const group = table.get(process.pid)?.pgid;
  const chain = [process.ppid];
  for (let pid = process.ppid; group !== undefined && table.get(pid)?.pgid === group; ) {
    const parent = table.get(pid)?.ppid;
    if (parent === undefined || parent <= 1 || table.get(parent)?.pgid !== group || chain.includes(parent)) break;
    chain.push(parent);
    pid = parent;
  }
  return chain.filter((pid) => pid > 1);
}

/**
 * Calls `onGone` once when one of the launchers has ended (SIGKILLed `npm`, say, or the tsx
 * that ran this script): the runner then stops its stack instead of serving on without them.
 */
export function whenLaunchersGone(onGone: (pid: number) => void): void {
  const parent = process.ppid;
  const watched = launchers();
  const timer = setInterval(() => {
    const gone = process.ppid !== parent ? parent : watched.find((pid) => !alive(pid));
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, POLL_MS);
  timer.unref();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, and someone else's.
    return error instanceof Error && Reflect.get(error, 'code') === 'EPERM';
  }
  // A process that ended but is not yet reaped (a zombie, state Z) still takes signals (Linux tells).
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
