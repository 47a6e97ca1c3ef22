import assert from 'node:assert/strict';
import { DEV_GRAPH_STANDIN, parseCommandLine } from './main.ts';
import { DEV_RELAY } from './host.ts';

Deno.test('defaults mirror npm run dev: relay, legacy allow-list, statement copies, Graph stand-in', () => {
  const line = parseCommandLine([]);
  assert.equal(line.vars.PG_WS_PROXY, DEV_RELAY);
  assert.equal(line.vars.DATABASE_URL, undefined);
  assert.deepEqual(line.serviceVars.migrate, { MIGRATE_ALLOWED_HOSTS: '127.0.0.1:54330', MIGRATE_DIRECT_COPY: 'off' });
  assert.equal(line.serviceVars.mail?.GRAPH_BASE_URL, `${DEV_GRAPH_STANDIN}/v1.0`);
  assert.equal(line.serviceVars.mail?.MAIL_DEV_AUTO_CONNECT, 'true');
  assert.equal(line.seed, true);
  assert.match(line.stateDir, /\.data\/deno$/);
});

Deno.test('flags and environment override the defaults', () => {
  const line = parseCommandLine(
    [
      '--state',
      '/tmp/s',
      '--services',
      'stats, form',
      '--port',
      'stats=9001',
      '--var',
      'A:b:c',
      '--var',
      'mail.MAIL_MODEL:offline',
      '--var',
      'migrate.MIGRATE_DIRECT_COPY:on',
      '--no-seed',
      '--test-scheduled',
      '--graph-standin',
      'http://127.0.0.1:9/',
    ],
    { DATABASE_URL: 'postgres://u:p@db:5432/x', PG_WS_PROXY: 'ws://127.0.0.1:1234', LEGACY_DATABASE_URL: 'postgres://u:p@legacy:6000/y' },
  );
  assert.equal(line.stateDir, '/tmp/s');
  assert.deepEqual(line.services, ['stats', 'form']);
  assert.deepEqual(line.ports, { stats: 9001 });
  assert.equal(line.vars.A, 'b:c');
  assert.equal(line.vars.DATABASE_URL, 'postgres://u:p@db:5432/x');
  assert.equal(line.vars.PG_WS_PROXY, 'ws://127.0.0.1:1234');
  assert.deepEqual(line.serviceVars.migrate, { MIGRATE_ALLOWED_HOSTS: 'legacy:6000', MIGRATE_DIRECT_COPY: 'on' });
  assert.equal(line.serviceVars.mail?.MAIL_MODEL, 'offline');
  assert.equal(line.serviceVars.mail?.IDENTITY_BASE_URL, 'http://127.0.0.1:9');
  assert.equal(line.seed, false);
  assert.equal(line.testScheduled, true);
  assert.throws(() => parseCommandLine(['--port', 'stats']), /NAME=PORT/);
  assert.throws(() => parseCommandLine(['--var', 'novalue']), /NAME:VALUE/);
});
