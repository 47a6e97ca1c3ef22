import { env } from 'cloudflare:workers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fetchSheet, SheetUnavailableError, sheetUrlRefusal } from '../../workers/migrate/src/imports/storage';

// An auto-sync's sheet address is fetched only from MIGRATE_SHEET_HOSTS, and so is every redirect
// it answers with (followed by hand, at most five). The network is a fake inside the isolate: it
// answers the addresses of `routes` and records every request, so a refused address is seen not
// to have been fetched at all.

const HOSTS = ['sheets.invalid', '*.sheets.invalid', 'port.example:8443'];
const CSV = 'Date,Course,Race,Horse,Tab,Segment,Time\n';

let routes: Record<string, () => Response>;
let fetched: { url: string; redirect: string | undefined }[];

beforeEach(() => {
  routes = {};
  fetched = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    fetched.push({ url: request.url, redirect: init?.redirect });
    return routes[request.url]?.() ?? new Response('not found', { status: 404 });
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

const sheetAt = (url: string) => fetchSheet(env.SHEETS, { kind: 'url', url }, HOSTS);
const redirect =
  (location: string, status = 302) =>
  () =>
    new Response(null, { status, headers: { location } });
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('the list', () => {
  it('takes a host, a host and port, and every host under a *.domain', () => {
    expect(sheetUrlRefusal('https://sheets.invalid/a.csv', HOSTS)).toBeNull();
    expect(sheetUrlRefusal('https://SHEETS.invalid:443/a.csv', HOSTS)).toBeNull();
    expect(sheetUrlRefusal('https://cdn.eu.sheets.invalid/a.csv', HOSTS)).toBeNull();
    expect(sheetUrlRefusal('https://port.example:8443/a.csv', HOSTS)).toBeNull();
    expect(sheetUrlRefusal('https://port.example/a.csv', HOSTS)).toMatch(/port\.example is not on this service's sheet hosts/);
    expect(sheetUrlRefusal('https://evilsheets.invalid/a.csv', HOSTS)).toMatch(/evilsheets\.invalid is not on/);
    expect(sheetUrlRefusal('https://sheets.invalid.evil.example/a.csv', HOSTS)).toMatch(/is not on/);
    expect(sheetUrlRefusal('http://sheets.invalid/a.csv', HOSTS)).toMatch(/not an https:\/\/ address/);
    expect(sheetUrlRefusal('https://sheets.invalid/a.csv', [])).toMatch(/MIGRATE_SHEET_HOSTS: none/);
  });
});

describe('fetching a sheet', () => {
  it('an allowed host is fetched, with redirects left to the app', async () => {
    routes['https://sheets.invalid/sectionals.csv'] = () => new Response(CSV);
    expect(text(await sheetAt('https://sheets.invalid/sectionals.csv'))).toBe(CSV);
    expect(fetched).toEqual([{ url: 'https://sheets.invalid/sectionals.csv', redirect: 'manual' }]);
  });

  it('a host not on the list is refused without a request', async () => {
    const failure = sheetAt('https://elsewhere.example/sectionals.csv');
    await expect(failure).rejects.toBeInstanceOf(SheetUnavailableError);
    await expect(failure).rejects.toThrow(
      /The host elsewhere\.example is not on this service's sheet hosts \(MIGRATE_SHEET_HOSTS: sheets\.invalid/,
    );
    expect(fetched).toEqual([]);
  });

  it('redirects within the list are followed, relative ones included', async () => {
    routes['https://sheets.invalid/latest.csv'] = redirect('https://cdn.sheets.invalid/v2/latest.csv', 301);
    routes['https://cdn.sheets.invalid/v2/latest.csv'] = redirect('../files/s.csv', 307);
    routes['https://cdn.sheets.invalid/files/s.csv'] = () => new Response(CSV);
    expect(text(await sheetAt('https://sheets.invalid/latest.csv'))).toBe(CSV);
    expect(fetched.map((f) => f.url)).toEqual([
      'https://sheets.invalid/latest.csv',
      'https://cdn.sheets.invalid/v2/latest.csv',
      'https://cdn.sheets.invalid/files/s.csv',
    ]);
    expect(fetched.every((f) => f.redirect === 'manual')).toBe(true);
  });

  it('a redirect from an allowed host to one off the list is refused, and the other host never asked', async () => {
    routes['https://sheets.invalid/moved.csv'] = redirect('https://attacker.example/steal.csv');
    await expect(sheetAt('https://sheets.invalid/moved.csv')).rejects.toThrow(
      /Fetching https:\/\/sheets\.invalid\/moved\.csv was refused: it redirects to https:\/\/attacker\.example\/steal\.csv\. The host attacker\.example is not on/,
    );
    expect(fetched.map((f) => f.url)).toEqual(['https://sheets.invalid/moved.csv']);
  });

  it('a redirect to plain http, or to an address inside the network, is refused', async () => {
    routes['https://sheets.invalid/plain.csv'] = redirect('http://sheets.invalid/plain.csv');
    await expect(sheetAt('https://sheets.invalid/plain.csv')).rejects.toThrow(
      /redirects to http:\/\/sheets\.invalid\/plain\.csv\. .*not an https:\/\/ address/,
    );
    routes['https://sheets.invalid/meta.csv'] = redirect('https://169.254.169.254/latest/meta-data');
    await expect(sheetAt('https://sheets.invalid/meta.csv')).rejects.toThrow(/The host 169\.254\.169\.254 is not on/);
    expect(fetched.map((f) => f.url)).toEqual(['https://sheets.invalid/plain.csv', 'https://sheets.invalid/meta.csv']);
  });

  it('stops after five redirects, and on a redirect without a Location', async () => {
    for (let i = 0; i < 10; i++) routes[`https://sheets.invalid/${i}`] = redirect(`/${i + 1}`);
    await expect(sheetAt('https://sheets.invalid/0')).rejects.toThrow(/more than 5 redirects/);
    expect(fetched).toHaveLength(6);
    routes['https://sheets.invalid/nowhere'] = () => new Response(null, { status: 302 });
    await expect(sheetAt('https://sheets.invalid/nowhere')).rejects.toThrow(/HTTP 302 without a Location/);
  });
});
