// The Deno host: every service from the same source files the Workers deploy, on the same local
// ports as `npm run dev`. See deno/README.md ("Deno host").
//
//   node_modules/.bin/deno run -A --unstable-cron deno/host/main.ts \
//     [--state DIR] [--services stats,form,…] [--port NAME=PORT] [--var NAME:VALUE] [--var SERVICE.NAME:VALUE]
//     [--pg-ws-proxy ws://host:port] [--database-url postgres://…] [--legacy-database-url postgres://…]
//     [--graph-standin http://host:port] [--no-seed] [--no-crons] [--test-scheduled] [--hostname 127.0.0.1]
import { parseArgs } from 'node:util';
import { DEV_RELAY, defaultStateDir, startHost } from './host.ts';
import { seedDevData } from './seed.ts';
import { devServiceVars } from '../../scripts/dev-service-vars.ts';

/** The dev runner's fixed addresses (scripts/dev.ts, scripts/racing/legacy-load.ts). */
export const DEV_LEGACY_DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:54330/postgres';
export const DEV_GRAPH_STANDIN = 'http://127.0.0.1:8796';

export interface CommandLine {
  stateDir: string;
  services?: string[];
  ports: Record<string, number>;
  vars: Record<string, string>;
  serviceVars: Record<string, Record<string, string>>;
  seed: boolean;
  crons: boolean;
  testScheduled: boolean;
  hostname: string;
  legacyDatabaseUrl?: string;
  graphStandin: string;
}

export function parseCommandLine(args: string[], environment: Record<string, string | undefined> = {}): CommandLine {
  const { values } = parseArgs({
    args,
    options: {
      state: { type: 'string' },
      services: { type: 'string' },
      port: { type: 'string', multiple: true },
      var: { type: 'string', multiple: true },
      'pg-ws-proxy': { type: 'string' },
      'database-url': { type: 'string' },
      'legacy-database-url': { type: 'string' },
      'graph-standin': { type: 'string' },
      'no-seed': { type: 'boolean', default: false },
      'no-crons': { type: 'boolean', default: false },
      'test-scheduled': { type: 'boolean', default: false },
      hostname: { type: 'string', default: '127.0.0.1' },
    },
  });
  const ports: Record<string, number> = {};
  for (const entry of values.port ?? []) {
    const [name, port] = entry.split('=');
    if (!name || !port || !/^\d+$/.test(port)) throw new Error(`--port ${entry}: expected NAME=PORT`);
    ports[name] = Number(port);
  }
  // As the dev runner passes them: the relay address to every Worker, DATABASE_URL only when set.
  const vars: Record<string, string> = { PG_WS_PROXY: values['pg-ws-proxy'] ?? environment.PG_WS_PROXY ?? DEV_RELAY };
  const databaseUrl = values['database-url'] ?? environment.DATABASE_URL;
  if (databaseUrl) vars.DATABASE_URL = databaseUrl;
  const serviceVars: Record<string, Record<string, string>> = {};
  for (const entry of values.var ?? []) {
    const colon = entry.indexOf(':');
    if (colon < 1) throw new Error(`--var ${entry}: expected NAME:VALUE or SERVICE.NAME:VALUE`);
    const key = entry.slice(0, colon);
    const value = entry.slice(colon + 1);
    const dot = key.indexOf('.');
    if (dot > 0) (serviceVars[key.slice(0, dot)] ??= {})[key.slice(dot + 1)] = value;
    else vars[key] = value;
  }
  // As the dev runner sets them (scripts/dev-service-vars.ts); `--var` overrides them.
  const legacyDatabaseUrl = values['legacy-database-url'] ?? environment.LEGACY_DATABASE_URL;
  const standin = (values['graph-standin'] ?? environment.GRAPH_STANDIN_URL ?? DEV_GRAPH_STANDIN).replace(/\/+$/, '');
  const extra = devServiceVars({
    legacyDatabaseUrl: legacyDatabaseUrl ?? DEV_LEGACY_DATABASE_URL,
    embeddedRacingDatabase: !databaseUrl,
    graphStandin: standin,
  });
  serviceVars.migrate = { ...extra.migrate, ...serviceVars.migrate };
  serviceVars.mail = { ...extra.mail, ...serviceVars.mail };
  return {
    stateDir: values.state ?? defaultStateDir(),
    services: values.services
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    ports,
    vars,
    serviceVars,
    seed: !values['no-seed'],
    crons: !values['no-crons'],
    testScheduled: values['test-scheduled'],
    hostname: values.hostname,
    legacyDatabaseUrl,
    graphStandin: standin,
  };
}

if (import.meta.main) {
  const line = parseCommandLine(Deno.args, Deno.env.toObject());
  const names = line.services;
  const withMigrate = !names || names.includes('migrate');
  const host = await startHost({
    services: names,
    ports: line.ports,
    hostname: line.hostname,
    stateDir: line.stateDir,
    vars: line.vars,
    serviceVars: line.serviceVars,
    testScheduled: line.testScheduled,
    crons: line.crons,
    seed: line.seed ? (service) => seedDevData(service, { withMigrate, legacyDatabaseUrl: line.legacyDatabaseUrl }) : undefined,
  });
  console.log(`\nServing on Deno (state in ${line.stateDir}):`);
  for (const service of host.services.values()) console.log(`  ${service.name.padEnd(8)} ${service.url}`);
  // `npm run dev:deno` (scripts/dev-deno.ts) starts these before the host; run alone, the host expects them running.
  console.log(`  PG_WS_PROXY ${line.vars.PG_WS_PROXY}`);
  console.log(`  mail: Microsoft Graph stand-in at ${line.graphStandin}`);
  console.log('Ready');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await host.close();
    Deno.exit(0);
  };
  Deno.addSignalListener('SIGINT', stop);
  Deno.addSignalListener('SIGTERM', stop);
}
