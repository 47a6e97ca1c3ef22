import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/workers.ts';
import type { StepFigures } from './drive.ts';

export interface RouteSweep {
  service: string;
  route: string;
  steps: StepFigures[];
  knee: number | undefined;
  /** The first step whose p99 passes 10× its own p50. */
  kneeSameStep: number | undefined;
}

const pad = (value: unknown, width: number) => String(value).padStart(width);
const cpu = (step: StepFigures) =>
  step.cpuMsPerRequest ? `${step.cpuMsPerRequest.workerd}/${step.cpuMsPerRequest.node}/${step.cpuMsPerRequest.postgres}` : '';

/** One table: a line per route and step, then each workerd's peak memory. */
export function printSweep(title: string, sweeps: RouteSweep[], memory: Record<string, number | undefined>) {
  console.log(`\n${title}`);
  console.log(
    `  ${'service  route'.padEnd(44)}${pad('conns', 6)}${pad('rps', 9)}${pad('p50 ms', 9)}${pad('p95 ms', 9)}${pad('p99 ms', 9)}${pad('non-2xx', 9)}${pad('errors', 8)}  ${'CPU ms/req w/n/pg'.padEnd(18)}  knee`,
  );
  for (const sweep of sweeps) {
    sweep.steps.forEach((step, i) => {
      const name = i === 0 ? `${sweep.service.padEnd(8)} ${sweep.route}` : '';
      const knee =
        i === 0 ? (sweep.knee === undefined ? `none up to ${sweep.steps.at(-1)?.connections}` : `${sweep.knee} connections`) : '';
      console.log(
        `  ${name.padEnd(44)}${pad(step.connections, 6)}${pad(step.rps, 9)}${pad(step.p50, 9)}${pad(step.p95, 9)}${pad(step.p99, 9)}${pad(step.non2xx, 9)}${pad(step.errors, 8)}  ${cpu(step).padEnd(18)}  ${knee}`,
      );
    });
  }
  console.log("  (CPU ms/req: the service's workerd / this process — relay and load generator / PostgreSQL, per answered request)");
  console.log(
    `  peak RSS of each service's two workerd processes (VmHWM, summed): ${Object.entries(memory)
      .map(([name, mib]) => `${name} ${mib === undefined ? '?' : mib.toFixed(0)} MiB`)
      .join(', ')}`,
  );
}

/** Writes the run's figures as JSON under bench/results/ (git-ignored); returns the path. */
export function writeResults(name: string, figures: unknown): string {
  const dir = join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, `${JSON.stringify(figures, null, 2)}\n`);
  return path;
}
