import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccountName } from './accounts';
import { account, BASE, Client, freshCode, legacyConfigurationForm } from './helpers';

/**
 * The app on the shared origin under `/migrate` and at the root of its own host: a browser that
 * only follows what the app hands it (redirects, links, form actions, asset URLs, cookie paths,
 * URLs in JSON) stays under the mount it came in by.
 */

const LEGACY = legacyConfigurationForm('Legacy');

/** Root-relative URLs of the start tags' attributes a browser follows. */
function linkedPaths(html: string): string[] {
  const paths: string[] = [];
  for (const tag of html.match(/<[a-zA-Z][^>]*>/g) ?? []) {
    for (const m of tag.matchAll(/\s(?:href|src|action|formaction|poster)\s*=\s*(["']?)(\/[^"'\s>]*)/gi))
      paths.push(m[2]!.replaceAll('&amp;', '&'));
  }
  return paths;
}

/** The request path (with query) a Location or link names, for the next request. */
const pathOf = (url: string) => {
  const u = new URL(url, BASE);
  expect(u.origin).toBe(BASE);
  return `${u.pathname}${u.search}`;
};

for (const mount of [
  { prefix: '/migrate', name: 'prefixOperator' as TestAccountName, label: 'under /migrate' },
  { prefix: '', name: 'rootOperator' as TestAccountName, label: 'at the root' },
]) {
  const { prefix, name, label } = mount;

  /** True when a root-relative path is one of this mount's. */
  const ours = (path: string) =>
    prefix ? path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`) : !/^\/migrate(\/|\?|$)/.test(path);

  const expectLocation = (res: Response, startsWith: string) => {
    expect(res.status, `${res.url} ${res.status}`).toBe(302);
    const location = res.headers.get('location') ?? '';
    expect(location.startsWith(`${prefix}${startsWith}`), location).toBe(true);
    return location;
  };

  const expectPage = async (client: Client, path: string) => {
    const { res, html } = await client.page(`${prefix}${path}`);
    expect(res.status, `${path}: ${html.slice(0, 300)}`).toBe(200);
    const paths = linkedPaths(html);
    expect(paths.length, path).toBeGreaterThan(0);
    for (const p of paths) expect(ours(p), `${path} links ${p}`).toBe(true);
    if (prefix) expect(html).toContain(`<meta name="base-path" content="${prefix}">`);
    else expect(html).not.toContain('name="base-path"');
    return { html, paths };
  };

  describe(`migration app ${label}`, () => {
    let client: Client;
    const redirects: string[] = [];
    const setCookies: string[] = [];

    beforeAll(async () => {
      client = new Client();
      const track = (res: Response) => {
        const location = res.headers.get('location');
        if (location) redirects.push(location);
        setCookies.push(...res.headers.getAll('set-cookie'));
        return res;
      };
      const { email, password } = account(name);
      const home = track(await client.get(`${prefix}/`));
      const loginAt = expectLocation(home, '/Account/Login');
      const login = await client.page(pathOf(loginAt));
      const loginAction = linkedPaths(login.html).find((p) => p.endsWith('/Account/Login'));
      expect(loginAction).toBe(`${prefix}/Account/Login`);
      const verifyAt = expectLocation(track(await client.post(loginAction!, { email, password })), '/Account/Verify?');
      const pendingToken = new URL(verifyAt, BASE).searchParams.get('pendingToken')!;
      const verifyPage = await client.page(pathOf(verifyAt));
      const verifyAction = linkedPaths(verifyPage.html).find((p) => p.endsWith('/Account/Verify'));
      expect(verifyAction).toBe(`${prefix}/Account/Verify`);
      let verified: Response | undefined;
      for (let attempt = 0; attempt < 5 && verified?.status !== 302; attempt++) {
        verified = track(await client.post(verifyAction!, { pendingToken, email, code: freshCode(name) }));
      }
      expect(verified!.headers.get('location')).toBe(`${prefix}/`);
      await client.page(`${prefix}/`);
    });

    it('signs in with every redirect under the mount', () => {
      expect(redirects.length).toBeGreaterThanOrEqual(3);
      for (const location of redirects) expect(ours(pathOf(location)), location).toBe(true);
    });

    it('scopes the session and anti-forgery cookies to the mount', () => {
      const expected = prefix || '/';
      for (const cookie of ['AuthToken', 'migrate_csrf']) {
        const line = setCookies.find((c) => c.startsWith(`${cookie}=`) && !/max-age=0/i.test(c));
        expect(line, cookie).toBeDefined();
        expect(/;\s*Path=([^;]*)/i.exec(line!)?.[1], line).toBe(expected);
      }
    });

    it('links every page (home, configuration, wizard, sync, meetings, sessions, repair, imports) under the mount', async () => {
      const homePage = await expectPage(client, '/');
      expect(
        homePage.paths.some((p) => new RegExp(`^${prefix}/static/migrate\\.css\\?v=[0-9a-f]+$`).test(p)),
        'migrate.css',
      ).toBe(true);
      expect(
        homePage.paths.some((p) => new RegExp(`^${prefix}/static/migrate\\.js\\?v=[0-9a-f]+$`).test(p)),
        'migrate.js',
      ).toBe(true);
      expect(homePage.paths).toContain(`${prefix}/Configuration`);
      expect(homePage.paths).toContain(`${prefix}/Account/Logout`);

      await expectPage(client, '/Configuration');
      const create = await expectPage(client, '/Configuration/Create');
      expect(create.paths).toContain(`${prefix}/Configuration/Create`);
      expectLocation(await client.post(`${prefix}/Configuration/Create`, LEGACY), '/Configuration');
      const list = await expectPage(client, '/Configuration');
      expect(list.paths.some((p) => p.startsWith(`${prefix}/Configuration/Edit/`))).toBe(true);
      expect(pathOf(expectLocation(await client.get(`${prefix}/Configuration/Index`), '/Configuration'))).toBe(`${prefix}/Configuration`);

      const tables = await expectPage(client, '/Migration/TableSelection');
      expect(tables.paths).toContain(`${prefix}/Migration/TableSelection`);
      // The first post makes the session.
      const next = expectLocation(
        await client.post(`${prefix}/Migration/TableSelection`, { selectedTables: 'venue' }),
        '/Migration/SchemaImport?',
      );
      const schema = await expectPage(client, pathOf(next).slice(prefix.length));
      expect(schema.paths.some((p) => p.startsWith(`${prefix}/Migration/SchemaImport`))).toBe(true);

      const syncPage = await expectPage(client, '/Sync');
      expect(
        syncPage.paths.some((p) => new RegExp(`^${prefix}/static/sync\\.js\\?v=[0-9a-f]+$`).test(p)),
        'sync.js',
      ).toBe(true);
      await expectPage(client, '/Sync/Create');
      await expectPage(client, '/Session');
      await expectPage(client, '/DisciplineRepair');
      for (const area of ['/BarrierTrials', '/Sectional']) {
        const page = await expectPage(client, area);
        expect(
          page.paths.some((p) => new RegExp(`^${prefix}/static/imports\\.js\\?v=[0-9a-f]+$`).test(p)),
          'imports.js',
        ).toBe(true);
      }
    });

    it('links the meetings list to a meeting page whose races load under the mount', async () => {
      const list = await expectPage(client, '/Meetings');
      const meeting = list.paths.find((p) => p.startsWith(`${prefix}/Meetings?rsId=`));
      expect(meeting, 'a meeting link').toBeDefined();
      const page = await expectPage(client, meeting!.slice(prefix.length));
      expect(
        page.paths.some((p) => new RegExp(`^${prefix}/static/meetings\\.js\\?v=[0-9a-f]+$`).test(p)),
        'meetings.js',
      ).toBe(true);
      expect(
        page.paths.some((p) => new RegExp(`^${prefix}/static/meetings\\.css\\?v=[0-9a-f]+$`).test(p)),
        'meetings.css',
      ).toBe(true);
      const rsId = /<section data-races[^>]*\sdata-rs-meeting="(\d+)"/.exec(page.html)?.[1];
      expect(rsId).toBeDefined();
      const races = await client.get(`${prefix}/Meetings/Races?rsMeetingId=${rsId}`);
      expect(races.status).toBe(200);
      expect(Array.isArray(await races.json())).toBe(true);
    });

    // At the root the platform serves the assets before the Worker runs.
    if (prefix)
      it('serves the stylesheet and scripts under the mount', async () => {
        const css = await client.get(`${prefix}/static/migrate.css?v=3`);
        expect(css.status).toBe(200);
        expect(css.headers.get('content-type')).toMatch(/^text\/css/);
        await css.body?.cancel();
        for (const script of ['common', 'migrate', 'meetings', 'sync', 'imports', 'discipline-repair']) {
          const js = await client.get(`${prefix}/static/${script}.js?v=3`);
          expect(js.status, script).toBe(200);
          expect(js.headers.get('content-type'), script).toMatch(/javascript/);
          // The common script reads the mount from the page; every page script builds the app's URLs through it.
          expect(await js.text(), script).toContain(script === 'common' ? 'meta[name="base-path"]' : 'window.migratePage');
        }
        // The pages load the common script first (deferred scripts run in document order).
        const html = await (await new Client().get(`${prefix}/Account/Login`)).text();
        const common = html.indexOf(`${prefix}/static/common.js?v=`);
        expect(common).toBeGreaterThan(0);
        expect(common).toBeLessThan(html.indexOf(`${prefix}/static/migrate.js?v=`));
      });

    it('names URLs in JSON under the mount: the API document, a signed-out JSON call, an unknown API route', async () => {
      const doc = await client.get(`${prefix}/openapi.json`);
      expect(doc.status).toBe(200);
      const body = await doc.json<{ servers?: { url: string }[]; info: { description: string } }>();
      // Under the mount the document's server is the mount; at the root it names none.
      expect(body.servers).toEqual(prefix ? [{ url: prefix }] : undefined);
      expect(body.info.description).toContain(`${prefix}/Account/Login`);

      const anonymous = new Client();
      for (const path of ['/api/sync/status', '/Meetings/Races?rsMeetingId=1', '/Migration/GetDestinationTableColumns?tableName=venues']) {
        expect(pathOf(expectLocation(await anonymous.get(`${prefix}${path}`), '/Account/Login'))).toBe(`${prefix}/Account/Login`);
      }

      const missing = await client.get(`${prefix}/api/nothing-here`);
      expect(missing.status).toBe(404);
      expect((await missing.json<{ message: string }>()).message).toContain(`${prefix}/api/nothing-here`);
    });

    it('accepts a same-origin POST and refuses a cross-origin one', async () => {
      await client.page(`${prefix}/Configuration/Create`);
      const connection = {
        Host: LEGACY.Host,
        Port: Number(LEGACY.Port),
        Database: LEGACY.Database,
        Username: LEGACY.Username,
        Password: LEGACY.Password,
      };
      const same = await client.postJson(`${prefix}/api/configuration/test-connection`, connection, {
        headers: { origin: BASE, 'sec-fetch-site': 'same-origin' },
      });
      expect(same.status).toBe(200);
      expect(await same.json()).toMatchObject({ success: true });
      const cross = await client.postJson(`${prefix}/api/configuration/test-connection`, connection, {
        headers: { origin: 'https://elsewhere.test' },
      });
      expect(cross.status).toBe(403);
      await cross.body?.cancel();
    });

    it('signs out to the login page under the mount and clears the cookie there', async () => {
      const home = await client.page(`${prefix}/`);
      expect(linkedPaths(home.html)).toContain(`${prefix}/Account/Logout`);
      const out = await client.post(`${prefix}/Account/Logout`);
      expectLocation(out, '/Account/Login');
      const cleared = out.headers.getAll('set-cookie').find((c) => c.startsWith('AuthToken='));
      expect(/;\s*Path=([^;]*)/i.exec(cleared ?? '')?.[1], cleared).toBe(prefix || '/');
      expectLocation(await client.get(`${prefix}/Configuration`), '/Account/Login');
    });
  });
}
