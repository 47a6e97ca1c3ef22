import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { signIn, type Client } from './helpers';

const legacy = new URL(env.TEST_LEGACY_DATABASE_URL);
const LEGACY = {
  Host: legacy.hostname,
  Port: legacy.port || '5432',
  Database: legacy.pathname.slice(1) || 'postgres',
  Username: decodeURIComponent(legacy.username),
  Password: decodeURIComponent(legacy.password),
};

const rows = () =>
  env.DB.prepare('select id, name, host, port, database, username, password_sealed, is_active from configurations order by id').all<{
    id: number;
    name: string;
    host: string;
    port: number;
    database: string;
    username: string;
    password_sealed: string;
    is_active: number;
  }>();

async function create(client: Client, fields: Record<string, string>) {
  await client.page('/Configuration/Create');
  return client.post('/Configuration/Create', fields);
}

describe('configurations: happy path', () => {
  it('creates a configuration with its password sealed, never shown again, and active when it is the first', async () => {
    const admin = await signIn('routesAdmin');
    const res = await create(admin, { ...LEGACY, Name: 'Legacy' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/Configuration');
    const [row] = (await rows()).results.filter((r) => r.name === 'Legacy');
    expect(row).toMatchObject({
      host: LEGACY.Host,
      port: Number(LEGACY.Port),
      database: LEGACY.Database,
      username: LEGACY.Username,
      is_active: 1,
    });
    expect(row!.password_sealed).toMatch(/^v1\./);
    expect(row!.password_sealed).not.toContain(LEGACY.Password);
    const list = await admin.page('/Configuration');
    expect(list.html).toContain('Legacy');
    const edit = await admin.page(`/Configuration/Edit/${row!.id}`);
    expect(edit.res.status).toBe(200);
    // The password field is always empty (and the dev database's password equals its user name here).
    expect(edit.html).toMatch(/<input id="Password" name="Password" type="password" autocomplete="new-password" maxlength="1024"\/>/);
    expect(edit.html).not.toContain(row!.password_sealed);
    const home = await admin.page('/');
    expect(home.html).toContain('data-active-configuration="true"');
  });

  it('edits keeping the stored password when none is typed, switches the active one, and deletes (Admin)', async () => {
    const operator = await signIn('routesOperator');
    await create(operator, { ...LEGACY, Name: 'First' });
    await create(operator, { ...LEGACY, Name: 'Second' });
    const all = (await rows()).results;
    const first = all.find((r) => r.name === 'First')!;
    const second = all.find((r) => r.name === 'Second')!;
    await operator.page(`/Configuration/Edit/${second.id}`);
    const edited = await operator.post('/Configuration/Edit', { ...LEGACY, Id: String(second.id), Name: 'Second renamed', Password: '' });
    expect(edited.status).toBe(302);
    const after = (await rows()).results.find((r) => r.id === second.id)!;
    expect(after.name).toBe('Second renamed');
    // The stored password still opens: the connection test with only the id succeeds.
    const tested = await operator.postJson('/api/configuration/test-connection', { ...LEGACY, Password: '', Id: second.id });
    expect(await tested.json()).toMatchObject({ success: true });
    const active = await operator.post('/Configuration/SetActive', { id: String(second.id) });
    expect(active.status).toBe(302);
    const flags = (await rows()).results.filter((r) => r.is_active === 1).map((r) => r.id);
    expect(flags).toEqual([second.id]);
    const admin = await signIn('routesAdmin');
    await admin.page('/Configuration');
    const deleted = await admin.post('/Configuration/Delete', { id: String(first.id) });
    expect(deleted.status).toBe(302);
    expect((await rows()).results.some((r) => r.id === first.id)).toBe(false);
  });

  it('tests a connection: 200 with success true for the legacy database', async () => {
    const operator = await signIn('routesOperator');
    const res = await operator.postJson('/api/configuration/test-connection', { ...LEGACY, Port: Number(LEGACY.Port) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json<{ success: boolean; message: string }>();
    expect(body.success).toBe(true);
    expect(typeof body.message).toBe('string');
  });
});

describe('configurations: error cases', () => {
  it('shows the form again (400) for missing, out-of-range or NUL-bearing fields, storing nothing', async () => {
    const operator = await signIn('routesOperator');
    const before = (await rows()).results.length;
    for (const bad of [
      { ...LEGACY, Host: '' },
      { ...LEGACY, Port: '0' },
      { ...LEGACY, Port: '70000' },
      { ...LEGACY, Database: 'x\u0000y' },
      { ...LEGACY, Password: '' },
      { ...LEGACY, Host: 'bad host!' },
    ]) {
      const res = await create(operator, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(await res.text()).toContain('field-error');
    }
    expect((await rows()).results.length).toBe(before);
  });

  it('refuses a host that is not on the allowed list', async () => {
    const operator = await signIn('routesOperator');
    const res = await create(operator, { ...LEGACY, Host: '169.254.169.254' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('allowed hosts');
    const tested = await operator.postJson('/api/configuration/test-connection', { ...LEGACY, Host: '10.0.0.1', Port: 5432 });
    expect(tested.status).toBe(200);
    expect(await tested.json()).toMatchObject({ success: false });
  });

  it('answers 404 for an unknown configuration and 400 for a malformed id', async () => {
    const admin = await signIn('routesAdmin');
    expect((await admin.get('/Configuration/Edit/999999')).status).toBe(404);
    expect((await admin.get('/Configuration/Edit/abc')).status).toBe(404);
    await admin.page('/Configuration');
    expect((await admin.post('/Configuration/SetActive', { id: '999999' })).status).toBe(404);
    expect((await admin.post('/Configuration/Delete', { id: '999999' })).status).toBe(404);
    expect((await admin.post('/Configuration/Delete', { id: 'abc' })).status).toBe(400);
    expect((await admin.post('/Configuration/Edit', { ...LEGACY, Id: '999999' })).status).toBe(404);
  });

  it('answers test-connection with success false and a clear message for a wrong password, never echoing it', async () => {
    // (An account of its own: test-connection is throttled per user.)
    const admin = await signIn('routesAdmin');
    const wrong = 'not-the-legacy-password-3d9a';
    const res = await admin.postJson('/api/configuration/test-connection', { ...LEGACY, Port: Number(LEGACY.Port), Password: wrong });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json<{ success: boolean; message: string }>();
    expect(body).toEqual({
      success: false,
      message: expect.stringMatching(
        /^Connection failed for user "postgres": the server refused the password \(SQLSTATE 28P01, invalid authorization\)$/,
      ),
    });
    expect(body.message).not.toContain(wrong);
    expect(body.message).not.toContain(LEGACY.Password);
  });

  it('answers test-connection with 200 and success false for bad input or an unknown stored configuration', async () => {
    const operator = await signIn('routesOperator');
    // (The embedded test database accepts any database name, so that cannot fail here; a wrong password can: see above.)
    for (const body of [
      {},
      { Host: 'x' },
      'not json',
      { ...LEGACY, Port: 'abc' },
      { ...LEGACY, Port: 0 },
      { ...LEGACY, Id: 999999, Password: '' },
    ]) {
      const res = await operator.postJson('/api/configuration/test-connection', body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(await res.json(), JSON.stringify(body)).toMatchObject({ success: false });
    }
  });

  it('answers 400 for table info without an active configuration', async () => {
    await env.DB.prepare('update configurations set is_active = 0').run();
    const viewer = await signIn('routesViewer');
    const res = await viewer.get('/api/table/info/horse');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'no_active_configuration' });
  });
});

describe('configurations: security', () => {
  it('throttles connection tests (429 with Retry-After)', async () => {
    const operator = await signIn('routesOperator');
    let last: Response | undefined;
    for (let i = 0; i < 12; i++) last = await operator.postJson('/api/configuration/test-connection', { Host: 'x' });
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('configurations: delete', () => {
  it('asks first, naming the sync jobs that go with it; deleting the active one makes the most recently used other active and says so', async () => {
    const admin = await signIn('routesAdmin');
    await create(admin, { ...LEGACY, Name: 'Delete older' });
    await create(admin, { ...LEGACY, Name: 'Delete newer' });
    await create(admin, { ...LEGACY, Name: 'Delete active' });
    const all = (await rows()).results;
    const older = all.find((r) => r.name === 'Delete older')!;
    const newer = all.find((r) => r.name === 'Delete newer')!;
    const doomed = all.find((r) => r.name === 'Delete active')!;
    await admin.page('/Configuration');
    expect((await admin.post('/Configuration/SetActive', { id: String(doomed.id) })).status).toBe(302);
    // The newer one was used last (a wizard session of it); the older one never.
    await env.DB.prepare("insert into migration_sessions (id, config_id, created_by, created_at) values (?, ?, 'test', ?)")
      .bind(crypto.randomUUID(), newer.id, Date.now() + 60_000)
      .run();
    for (const name of ['Nightly copy', 'Hourly copy']) {
      await env.DB.prepare('insert into sync_jobs (name, config_id, tables, interval_minutes) values (?, ?, ?, 60)')
        .bind(name, doomed.id, '["horse"]')
        .run();
    }

    const list = await admin.page('/Configuration');
    expect(list.html).toContain(`href="/Configuration/Delete/${doomed.id}"`);
    const ask = await admin.page(`/Configuration/Delete/${doomed.id}`);
    expect(ask.res.status).toBe(200);
    expect(ask.html).toContain('Delete the configuration Delete active?');
    expect(ask.html).toContain('<li>Hourly copy</li>');
    expect(ask.html).toContain('<li>Nightly copy</li>');
    expect(ask.html).toContain('the most recently used of the others becomes active');
    expect(ask.html).toContain('action="/Configuration/Delete"');
    expect((await admin.page('/Configuration/Delete/999999')).res.status).toBe(404);
    expect((await admin.page('/Configuration/Delete/abc')).res.status).toBe(404);
    const operator = await signIn('routesOperator');
    expect((await operator.get(`/Configuration/Delete/${doomed.id}`)).status).toBe(403);

    const deleted = await admin.post('/Configuration/Delete', { id: String(doomed.id) });
    expect(deleted.status).toBe(302);
    expect(deleted.headers.get('location')).toBe(`/Configuration?deleted=1&activated=${newer.id}`);
    const after = (await rows()).results;
    expect(after.some((r) => r.id === doomed.id)).toBe(false);
    expect(after.filter((r) => r.is_active === 1).map((r) => r.id)).toEqual([newer.id]);
    expect(older.id).not.toBe(newer.id);
    const jobs = await env.DB.prepare('select count(*) as n from sync_jobs where config_id = ?').bind(doomed.id).first<{ n: number }>();
    expect(jobs?.n).toBe(0);
    const shown = await admin.page(deleted.headers.get('location')!);
    expect(shown.html).toContain('The configuration was deleted. Delete newer is now the active configuration.');

    // Deleting one that is not active leaves the active one as it is.
    const again = await admin.post('/Configuration/Delete', { id: String(older.id) });
    expect(again.headers.get('location')).toBe('/Configuration?deleted=1');
    expect((await rows()).results.filter((r) => r.is_active === 1).map((r) => r.id)).toEqual([newer.id]);
  });
});
