import autocannon, { type RequestSpec } from 'autocannon';
import { percentile } from '../stats.ts';

/** One route the load bench drives: a path on a Worker, or a list of requests built per request. */
export interface Scenario {
  service: string;
  route: string;
  origin: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Built per request (a new Host per request for a cold cache, a refresh token chain per connection). */
  requests?: () => RequestSpec[];
  /** The most connections the route can take (the refresh chain: one token family per connection). */
  maxConnections?: number;
  /** Run before each step, unmeasured (new refresh token families). */
  prepare?: (connections: number) => Promise<void>;
}

export interface StepFigures {
  connections: number;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  non2xx: number;
  /** Responses by status code. */
  statuses: Record<string, number>;
  /** Connection errors and timeouts (no answer within the timeout). */
  errors: number;
  timeouts: number;
  /** CPU milliseconds per answered request: the service's workerd, this process (relay and load generator), PostgreSQL. */
  cpuMsPerRequest?: { workerd: number; node: number; postgres: number };
}

/** A response or an error, at a time since the start of the step. */
export interface Sample {
  atMs: number;
  status: number;
  ms: number;
}

/**
 * `connections` clients sending one request after another for `seconds` (autocannon), every
 * answer recorded: its status and latency, and the errors. `signal` can stop the run early.
 */
export async function drive(
  scenario: Scenario,
  connections: number,
  seconds: number,
  options: { timeoutS?: number; onSample?: (sample: Sample) => void; rate?: number } = {},
): Promise<{ figures: StepFigures; samples: Sample[] }> {
  const samples: Sample[] = [];
  const started = performance.now();
  const instance = autocannon({
    url: `${scenario.origin}${scenario.path}`,
    connections,
    duration: seconds,
    timeout: options.timeoutS ?? 10,
    method: scenario.method ?? 'GET',
    ...(scenario.headers ? { headers: scenario.headers } : {}),
    ...(scenario.body ? { body: scenario.body } : {}),
    ...(scenario.requests ? { requests: scenario.requests() } : {}),
    ...(options.rate ? { overallRate: options.rate } : {}),
  });
  instance.on('response', (_client, status, _bytes, ms) => {
    const sample = { atMs: performance.now() - started, status, ms };
    samples.push(sample);
    options.onSample?.(sample);
  });
  instance.on('reqError', () => {
    const sample = { atMs: performance.now() - started, status: 0, ms: Number.NaN };
    samples.push(sample);
    options.onSample?.(sample);
  });
  const result = await instance;
  const answered = samples.filter((s) => s.status > 0).map((s) => s.ms);
  const statuses: Record<string, number> = {};
  for (const s of samples) if (s.status > 0) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  const elapsed = (performance.now() - started) / 1000;
  return {
    samples,
    figures: {
      connections,
      seconds: Math.round(elapsed * 10) / 10,
      requests: answered.length,
      rps: Math.round((answered.length / elapsed) * 10) / 10,
      p50: round(percentile(answered, 50)),
      p95: round(percentile(answered, 95)),
      p99: round(percentile(answered, 99)),
      non2xx: result.non2xx,
      statuses,
      errors: result.errors,
      timeouts: result.timeouts,
    },
  };
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * The knee: the first step (connections) whose p99 passes 10× the route's unloaded p50 (its p50 at
 * one connection), or that got no answer at all. Past a route's saturation every answer waits in
 * the queue, p50 and p99 alike, so a step's p99 seldom passes 10× its own p50 (`sameStep`: that
 * reading, also kept).
 */
export function knee(steps: StepFigures[]): { knee: number | undefined; sameStep: number | undefined } {
  const unloaded = steps.find((step) => step.connections === 1)?.p50;
  return {
    knee: steps.find((step) => step.requests === 0 || (unloaded !== undefined && step.p99 > 10 * unloaded))?.connections,
    sameStep: steps.find((step) => step.requests === 0 || step.p99 > 10 * step.p50)?.connections,
  };
}
