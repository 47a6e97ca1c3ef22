import { loadavg } from 'node:os';
import { startRelay } from '../../scripts/relay.ts';
import type { BenchContext } from '../context.ts';
import { ensureData } from './data.ts';
import { drive, knee, type Scenario } from './drive.ts';
import { pgOutage } from './faults.ts';
import { authOutage } from './faults-auth.ts';
import { migrationKill } from './faults-migrate.ts';
import { benchMailLoad } from './mail.ts';
import { cpuSecondsOf, memoryOf, serverCpuSeconds } from './procs.ts';
import { startPgInstance } from './pg-instance.ts';
import { printSweep, type RouteSweep, writeResults } from './report.ts';
import { authScenarios, cmsScenarios, formScenarios, type Running, statsScenarios } from './scenarios.ts';
import { pickTargets, startAuth, startCms, startForm, startStats, type Started } from './services.ts';
import { soak } from './soak.ts';

// `npm run bench -- load [--duration 10] [--connections 1,10,50,200] [--services stats,form,cms,auth,mail,migrate]
//   [--faults] [--migrate-rows 1000000] [--soak 15m [--soak-connections 5]] [--scale] [--timeout 10]`:
// every service's busiest routes under a concurrency sweep (autocannon), against a PostgreSQL 15
// server of the bench's own with the `demo` data; faults under load, a soak, and the stats and form
// figures on ten times the data. Services run in local workerd on free loopback ports.

export interface LoadOptions {
  durationS: number;
  connections: number[];
  timeoutS: number;
  faults: boolean;
  soakS: number | undefined;
  /** Connections per soak route (--soak-connections); by default half its knee in this run's sweep. */
  soakConnections: number | undefined;
  scale: boolean;
  only: string[] | undefined;
  /** Rows of the copy whose workerd is killed (--migrate-rows, default 1,000,000). */
  migrateRows: number;
}

export function loadOptions(argv: readonly string[]): LoadOptions {
  const value = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const soakText = value('--soak');
  return {
    durationS: Number(value('--duration') ?? 5),
    connections: (value('--connections') ?? '1,10,50,200').split(',').map(Number),
    timeoutS: Number(value('--timeout') ?? 10),
    faults: argv.includes('--faults'),
    soakS: soakText === undefined ? undefined : seconds(soakText),
    soakConnections: value('--soak-connections') === undefined ? undefined : Number(value('--soak-connections')),
    scale: argv.includes('--scale'),
    only: value('--services')?.split(','),
    migrateRows: Number(value('--migrate-rows') ?? 1_000_000),
  };
}

/** `15m`, `120s`, `90` (seconds). */
function seconds(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text);
  if (!match) throw new Error(`--soak takes a duration like 15m or 120s, not ${text}`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[(match[2] ?? 's') as 's' | 'm' | 'h'];
}

export async function benchLoad(_ctx: BenchContext) {
  const options = loadOptions(process.argv);
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(2))
      .join(', ');
  console.log(
    `\nLoad bench: ${options.durationS} s per step, connections ${options.connections.join('/')}, machine load average ${load()}`,
  );
  const instance = await startPgInstance();
  const demo = await ensureData(instance, 'demo');
  const relay = await startRelay({ allow: [demo.url] });
  const started: Started[] = [];
  const results: Record<string, unknown> = { startedAt: new Date().toISOString(), loadAverage: loadavg(), options, runners: demo.runners };
  try {
    const targets = await pickTargets(demo.url, demo.today);
    const want = (name: string) => !options.only || options.only.includes(name);
    const running = {} as Running;
    // A soak reads each Worker's heap through its V8 inspector, opened only then.
    const inspector = options.soakS !== undefined;
    if (want('stats')) started.push((running.stats = await startStats(demo.url, relay.address, inspector)));
    if (want('form')) started.push((running.form = await startForm(demo.url, relay.address, inspector)));
    if (want('cms')) started.push((running.cms = await startCms(demo.url, relay.address, 2_000, inspector)));
    if (want('auth')) started.push((running.auth = await startAuth(2 + options.connections.reduce((sum, c) => sum + Math.min(c, 50), 0))));
    const scenarios: Scenario[] = [
      ...(running.stats ? statsScenarios(running.stats, targets) : []),
      ...(running.form ? formScenarios(running.form, targets) : []),
      ...(running.cms ? cmsScenarios(running.cms) : []),
      ...(running.auth ? authScenarios(running.auth) : []),
    ];
    const where: Where = { pids: Object.fromEntries(started.map((s) => [s.name, s.pids])), postmaster: instance.postmaster };
    const sweeps = await sweep(scenarios, options, where);
    const memory = peakMemory(started);
    if (want('mail')) {
      const mail = await benchMailLoad(options, (mailScenarios) => sweep(mailScenarios, options));
      sweeps.push(...mail.sweeps);
      memory.mail = mail.peakRssMiB;
      if (mail.throttling) results.graphThrottling = mail.throttling;
    }
    printSweep(`Concurrency sweep (demo data, ${demo.runners.toLocaleString('en')} runners; load average ${load()})`, sweeps, memory);
    Object.assign(results, { sweeps, peakRssMiB: memory });

    if (options.faults && running.stats && running.form) {
      results.pgOutage = await pgOutage(
        instance,
        [statsScenarios(running.stats, targets)[0]!, formScenarios(running.form, targets)[0]!],
        options,
      );
    }
    if (options.faults && want('cms')) results.authOutage = await authOutage(demo.url, relay.address, options);
    if (options.faults && want('migrate'))
      results.migrationKill = await migrationKill(instance, demo.url, relay.address, options.migrateRows, options);
    if (options.soakS && (running.stats || running.form || running.cms)) {
      results.soak = await soak(
        [
          ...(running.stats ? [statsScenarios(running.stats, targets)[0]!] : []),
          ...(running.form ? [formScenarios(running.form, targets)[1]!] : []),
          ...(running.cms ? [cmsScenarios(running.cms)[0]!] : []),
        ],
        sweeps,
        started.filter((s) => s.name !== 'auth'),
        options,
      );
    }
    if (options.scale) results.scale = await scaleRun(instance, relay, sweeps, options);
    console.log(`\n  figures written to ${writeResults('load', results)}`);
  } finally {
    for (const service of started) await service.dispose().catch(() => {});
    await relay.close();
    await instance.stop().catch(() => {});
  }
}

/** Where a step's CPU went: the service's workerd, this process (relay, load generator), the database server. */
function cpuMeter(pids: number[] = [], postmaster: number | undefined) {
  const read = () => ({
    workerd: pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0),
    node: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    postgres: postmaster === undefined ? 0 : serverCpuSeconds(postmaster),
  });
  const start = read();
  return (requests: number) => {
    const end = read();
    const per = (key: keyof typeof start) => Math.round(((end[key] - start[key]) * 1000 * 10) / Math.max(1, requests)) / 10;
    return { workerd: per('workerd'), node: per('node'), postgres: per('postgres') };
  };
}

async function sweep(scenarios: Scenario[], options: LoadOptions, where: Where = {}): Promise<RouteSweep[]> {
  const sweeps: RouteSweep[] = [];
  for (const scenario of scenarios) {
    // Three seconds at one connection first: the isolate, its connections and the database's caches warm.
    await scenario.prepare?.(1);
    await drive(scenario, 1, 3, { timeoutS: options.timeoutS });
    const steps = [];
    for (const connections of options.connections) {
      if (scenario.maxConnections !== undefined && connections > scenario.maxConnections) continue;
      await scenario.prepare?.(connections);
      const meter = cpuMeter(where.pids?.[scenario.service], where.postmaster?.());
      const { figures } = await drive(scenario, connections, options.durationS, { timeoutS: options.timeoutS });
      steps.push({ ...figures, cpuMsPerRequest: meter(figures.requests) });
      process.stdout.write('.');
    }
    const { knee: at, sameStep } = knee(steps);
    sweeps.push({ service: scenario.service, route: scenario.route, steps, knee: at, kneeSameStep: sameStep });
  }
  process.stdout.write('\n');
  return sweeps;
}

/** The processes a sweep's CPU is read from. */
type Where = { pids?: Record<string, number[] | undefined>; postmaster?: () => number | undefined };

/** The sum of the processes' figures (their peaks need not coincide: an upper bound), undefined when none was read. */
const sumOf = (values: (number | undefined)[]) =>
  values.some((v) => v === undefined) || values.length === 0 ? undefined : values.reduce((a, b) => a! + b!, 0);

function peakMemory(started: Started[]): Record<string, number | undefined> {
  return Object.fromEntries(started.map((s) => [s.name, sumOf(s.pids.map((pid) => memoryOf(pid)?.peakMiB))]));
}

/** The stats and form figures on `demo` and on ten times its rows, side by side. */
async function scaleRun(
  instance: Awaited<ReturnType<typeof startPgInstance>>,
  _relay: unknown,
  demoSweeps: RouteSweep[],
  options: LoadOptions,
) {
  const large = await ensureData(instance, 'demo×10');
  const relay = await startRelay({ allow: [large.url] });
  const services: Started[] = [];
  try {
    const targets = await pickTargets(large.url, large.today);
    const stats = await startStats(large.url, relay.address);
    services.push(stats);
    const form = await startForm(large.url, relay.address);
    services.push(form);
    const where: Where = { pids: { stats: stats.pids, form: form.pids }, postmaster: instance.postmaster };
    const sweeps = await sweep([...statsScenarios(stats, targets), ...formScenarios(form, targets)], options, where);
    printSweep(`The same routes on demo×10 (${large.runners.toLocaleString('en')} runners)`, sweeps, peakMemory(services));
    console.log('  p50 at one connection, demo → demo×10:');
    for (const s of sweeps) {
      const before = demoSweeps.find((d) => d.service === s.service && d.route === s.route)?.steps[0]?.p50;
      const after = s.steps[0]?.p50;
      if (before !== undefined && after !== undefined)
        console.log(`    ${s.service} ${s.route}: ${before} ms → ${after} ms (${(after / before).toFixed(2)}×)`);
    }
    return { runners: large.runners, sweeps };
  } finally {
    for (const service of services) await service.dispose().catch(() => {});
    await relay.close();
  }
}
