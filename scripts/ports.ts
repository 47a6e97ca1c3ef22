import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

/** A fixed local port the dev stack listens on, and what listens there. */
export type DevPort = { port: number; what: string };

/** Whether something already listens on `host:port` (tried by listening there and closing at once). */
export function portInUse(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(true) : reject(error)));
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}

/** A process that listens on a port: its pid, process group and command line, as far as they can be told. */
export type PortHolder = { pid: number; pgid?: number; command: string };

/**
 * The process listening on a TCP port, read from `ss` (Linux) or `lsof` (macOS), with its group
 * and command line from `ps`; undefined when none of them tells (another user's process, say).
 */
export function portHolder(port: number): PortHolder | undefined {
  const ss = spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  const lsof = spawnSync('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fp'], { encoding: 'utf8' });
  const pid = Number(/users:\(\("[^"]*",pid=(\d+)/.exec(ss.stdout ?? '')?.[1] ?? /^p(\d+)$/m.exec(lsof.stdout ?? '')?.[1]);
  if (!pid) return undefined;
  const ps = /^\s*(\d+)\s+(.*)$/.exec(spawnSync('ps', ['-o', 'pgid=,args=', '-p', String(pid)], { encoding: 'utf8' }).stdout?.trim() ?? '');
  return { pid, pgid: ps ? Number(ps[1]) : undefined, command: ps?.[2] ?? 'a process' };
}

/**
 * Fails, naming each port and the process that holds it, when any of the stack's fixed ports is
 * taken: most often by a dev stack still running from an earlier start.
 */
export async function assertPortsFree(ports: readonly DevPort[]): Promise<void> {
  const busy: (DevPort & { holder?: PortHolder })[] = [];
  for (const entry of ports) if (await portInUse(entry.port)) busy.push({ ...entry, holder: portHolder(entry.port) });
  if (busy.length === 0) return;
  // Paths shortened to their last part, so a line shows what runs (`…/workerd serve …`, `…/loader.mjs scripts/dev.ts`).
  const clip = (command: string) => {
    const short = command.replace(/(?:file:\/\/)?\/\S*\//g, '…/');
    return short.length > 110 ? `${short.slice(0, 109)}…` : short;
  };
  const lines = busy.map(({ port, what, holder }) =>
    `  ${port} (${what}): in use by ${holder ? `pid ${holder.pid}${holder.pgid ? ` in process group ${holder.pgid}` : ''}: ${clip(holder.command)}` : 'another process'}`,
  );
  // A whole group: a `wrangler dev` left behind is wrangler, its inner node process and workerd.
  const groups = [...new Set(busy.flatMap(({ holder }) => (holder ? [holder.pgid ? -holder.pgid : holder.pid] : [])))];
  const stop = groups.length ? `, or \`kill -- ${groups.join(' ')}\`` : '';
  throw new Error(
    `the dev stack's ports are taken:\n${lines.join('\n')}\n` +
      `A dev stack from an earlier start may still be running: stop it (Ctrl-C in its terminal${stop}) and start again.`,
  );
}
