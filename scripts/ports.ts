import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { DEV_LEGACY_PORT } from './racing/legacy-load.ts';

/** A fixed local port the dev stack listens on, and what listens there. */
export type DevPort = { port: number; what: string };

// Where `npm run dev` listens: fixed, so `.dev.vars.example` can name the database's.
export const DEV_PG_PORT = 54329;
export const DEV_RELAY_PORT = 8790;
/** The Microsoft Graph and identity platform stand-in the mail assistant talks to locally. */
export const DEV_GRAPH_STANDIN_PORT = 8796;
export { DEV_LEGACY_PORT };

/** A Worker's inspector (DevTools) port, beside its own. */
export const inspectorPort = (workerPort: number) => workerPort + 1000;

/** The largest `--port-offset`: the highest port of the stack (the legacy database's) moved to 65535. */
export const MAX_PORT_OFFSET = 65535 - Math.max(DEV_PG_PORT, DEV_LEGACY_PORT);

/**
 * How far a stack's ports are moved from `npm run dev`'s: `--port-offset N`, else `DEV_PORT_OFFSET`,
 * else 0. Every port it listens on and names to a Worker moves by the same amount.
 */
export function devPortOffset(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): number {
  const at = argv.indexOf('--port-offset');
  const raw = at >= 0 ? (argv[at + 1] ?? '') : env.DEV_PORT_OFFSET;
  if (raw === undefined || (at < 0 && raw === '')) return 0;
  const offset = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(offset <= MAX_PORT_OFFSET))
    throw new Error(`--port-offset (or DEV_PORT_OFFSET) takes a whole number from 0 to ${MAX_PORT_OFFSET}, not "${raw}"`);
  return offset;
}

export type DevStackPortsOptions = {
  /** The Workers served, on their own ports (landedWorkers() in workers.ts). */
  workers: readonly { name: string; port: number }[];
  offset: number;
  /** The embedded racing and legacy databases are started (no DATABASE_URL, LEGACY_DATABASE_URL given). */
  embeddedDatabase: boolean;
  embeddedLegacy: boolean;
  /** The Graph stand-in is started (the mail Worker is served). */
  graphStandin: boolean;
  /** Each Worker's inspector port beside its own (`wrangler dev`; the Deno host opens none). Default true. */
  inspectors?: boolean;
};

/** Every port a stack listens on, moved by its offset: the dev runner checks them before anything starts. */
export function devStackPorts(options: DevStackPortsOptions): DevPort[] {
  const ports: DevPort[] = [
    ...(options.embeddedDatabase ? [{ port: DEV_PG_PORT, what: 'embedded PostgreSQL' }] : []),
    ...(options.embeddedLegacy ? [{ port: DEV_LEGACY_PORT, what: 'legacy source PostgreSQL' }] : []),
    { port: DEV_RELAY_PORT, what: 'Postgres relay' },
    ...(options.graphStandin ? [{ port: DEV_GRAPH_STANDIN_PORT, what: 'Microsoft Graph stand-in' }] : []),
    ...options.workers.flatMap((worker) => [
      { port: worker.port, what: `${worker.name} Worker` },
      ...(options.inspectors === false ? [] : [{ port: inspectorPort(worker.port), what: `${worker.name} inspector` }]),
    ]),
  ];
  return ports.map((entry) => ({ ...entry, port: entry.port + options.offset }));
}

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
  const lines = busy.map(
    ({ port, what, holder }) =>
      `  ${port} (${what}): in use by ${holder ? `pid ${holder.pid}${holder.pgid ? ` in process group ${holder.pgid}` : ''}: ${clip(holder.command)}` : 'another process'}`,
  );
  // A whole group: a `wrangler dev` left behind is wrangler, its inner node process and workerd.
  const groups = [...new Set(busy.flatMap(({ holder }) => (holder ? [holder.pgid ? -holder.pgid : holder.pid] : [])))];
  const stop = groups.length ? `, or \`kill -- ${groups.join(' ')}\`` : '';
  throw new Error(
    `the dev stack's ports are taken:\n${lines.join('\n')}\n` +
      `A dev stack from an earlier start may still be running: stop it (Ctrl-C in its terminal${stop}) and start again, ` +
      'or start a second stack beside it on other ports and its own state (--port-offset N).',
  );
}
