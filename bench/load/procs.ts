import { readdirSync, readFileSync } from 'node:fs';

/** Process ids of every `workerd` below `root` in the process tree (the Workers this program started). */
export function workerdDescendants(root = process.pid): number[] {
  const children = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces, so split after the last ')'.
      const close = stat.lastIndexOf(')');
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while the table was read.
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (names.get(child) === 'workerd') found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Resident and peak resident memory of a process in MiB (VmRSS, VmHWM), or undefined once it is gone. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
    return { rssMiB: field('VmRSS'), peakMiB: field('VmHWM') };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used, with those of its children that have ended when `withEnded`. */
export function cpuSecondsOf(pid: number, withEnded = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + (withEnded ? Number(fields[13]) + Number(fields[14]) : 0);
    return ticks / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of a PostgreSQL server: the postmaster, its ended backends and its live ones. */
export function serverCpuSeconds(postmaster: number): number {
  let total = cpuSecondsOf(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) total += cpuSecondsOf(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

/**
 * Which of a service's two workerd processes this is: the Worker's own (started with an inspector
 * address when the Worker has one) or wrangler's proxy in front of it; undefined once it is gone.
 */
export function workerdRole(pid: number): 'worker' | 'proxy' | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--inspector-addr') ? 'worker' : 'proxy';
  } catch {
    return undefined;
  }
}
