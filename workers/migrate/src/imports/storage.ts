import { readCapped } from '#shared/body.ts';
import { hostAllowed } from '../configurations.ts';
import type { ImportArea } from './areas.ts';
import type { SheetSource } from './jobs.ts';
import { SHEET_LIMITS } from './sheet/index.ts';

// The import sheets in R2 (binding SHEETS): uploads for preview under `tmp/` — the `tempPath` a
// Start posts back — which the bucket's lifecycle rule deletes a day later
// (r2/migrate-sheets.lifecycle.json), and each area's auto-sync sheet under `auto-sync/`.

/** The sheet cannot be read: the upload expired, the object is gone, or the address failed. */
export class SheetUnavailableError extends Error {}

export const TEMP_PREFIX = 'tmp/';
/** Example sheets offered on each area's page (`examples/<area>/<file>`; the dev runner writes them). */
export const EXAMPLES_PREFIX = 'examples/';
const FETCH_TIMEOUT_MS = 30_000;

/** A file name safe in a key and in a page: letters, digits, dot, dash, underscore, space. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .replace(/[^A-Za-z0-9._ -]+/g, '_')
    .replace(/^[ .]+/, '')
    .slice(-100);
  return cleaned || 'sheet';
}

/** `tmp/<area>/<uuid>/<file name>`: what Preview stores and Start posts back. */
export const TEMP_PATH =
  /^tmp\/(BarrierTrials|Sectional)\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[A-Za-z0-9._ -]{1,100}$/;

export async function storeUpload(bucket: R2Bucket, area: ImportArea, fileName: string, bytes: Uint8Array): Promise<string> {
  const key = `${TEMP_PREFIX}${area}/${crypto.randomUUID()}/${safeFileName(fileName)}`;
  await bucket.put(key, bytes, { customMetadata: { area, fileName } });
  return key;
}

export async function storeAutoSyncSheet(bucket: R2Bucket, area: ImportArea, fileName: string, bytes: Uint8Array): Promise<string> {
  const key = `auto-sync/${area}/${crypto.randomUUID()}/${safeFileName(fileName)}`;
  await bucket.put(key, bytes, { customMetadata: { area, fileName } });
  return key;
}

/** A response's body, refused past `max` bytes. */
async function readLimited(res: Response, max: number, url: string): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array();
  const declared = Number(res.headers.get('content-length') ?? 'NaN');
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readCapped(res.body, max, Number.isFinite(declared) ? declared : undefined, 0);
  } catch {
    throw new SheetUnavailableError(`Fetching ${url} failed: the answer broke off.`);
  }
  if (!bytes) throw new SheetUnavailableError(`The sheet at ${url} is larger than ${max / (1024 * 1024)} MB.`);
  return bytes;
}

/** True for an https:// address with a host name (what an auto-sync may fetch). */
export function isSheetUrl(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\s]/.test(text)) return false;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.hostname.length > 0 && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** True when the address's host is on MIGRATE_SHEET_HOSTS: `host`, `host:port`, or `*.domain` for every host under it. */
export function sheetHostAllowed(hosts: readonly string[], url: URL): boolean {
  const name = url.hostname.toLowerCase();
  return (
    hostAllowed(hosts, name, Number(url.port || 443)) || hosts.some((entry) => entry.startsWith('*.') && name.endsWith(entry.slice(1)))
  );
}

/** Why an address may not be fetched (not https, or its host off MIGRATE_SHEET_HOSTS); null when it may. */
export function sheetUrlRefusal(text: string, hosts: readonly string[]): string | null {
  if (!isSheetUrl(text)) return `${text.slice(0, 300)} is not an https:// address.`;
  const url = new URL(text);
  if (sheetHostAllowed(hosts, url)) return null;
  return `The host ${url.host} is not on this service's sheet hosts (MIGRATE_SHEET_HOSTS: ${hosts.length ? hosts.join(', ') : 'none'}): only an administrator can add it.`;
}

/** Redirects followed, each checked against the list like the first address. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** GET of an allowed address, following its redirects by hand so that every hop is held to `hosts`. */
async function fetchAllowed(address: string, hosts: readonly string[], signal: AbortSignal): Promise<Response> {
  let url = address;
  for (let hop = 0; ; hop++) {
    const refused = sheetUrlRefusal(url, hosts);
    if (refused)
      throw new SheetUnavailableError(hop ? `Fetching ${address} was refused: it redirects to ${url.slice(0, 300)}. ${refused}` : refused);
    let res: Response;
    try {
      res = await fetch(url, {
        signal,
        redirect: 'manual',
        headers: { accept: 'text/csv, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, */*' },
      });
    } catch (error) {
      throw new SheetUnavailableError(`Fetching ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!REDIRECT_STATUSES.has(res.status)) return res;
    await res.body?.cancel().catch(() => {});
    const location = res.headers.get('location');
    if (!location) throw new SheetUnavailableError(`Fetching ${url} failed: HTTP ${res.status} without a Location.`);
    if (hop === MAX_REDIRECTS) throw new SheetUnavailableError(`Fetching ${address} failed: more than ${MAX_REDIRECTS} redirects.`);
    try {
      url = new URL(location, url).toString();
    } catch {
      throw new SheetUnavailableError(`Fetching ${url} failed: HTTP ${res.status} to a Location that is not an address.`);
    }
  }
}

/** The sheet's bytes, from R2 or its address (on `sheetHosts`, MIGRATE_SHEET_HOSTS, as every redirect must be). */
export async function fetchSheet(bucket: R2Bucket, source: SheetSource, sheetHosts: readonly string[]): Promise<Uint8Array> {
  if (source.kind === 'r2') {
    const object = await bucket.get(source.key);
    if (!object) {
      throw new SheetUnavailableError(
        source.key.startsWith(TEMP_PREFIX)
          ? 'The uploaded sheet is no longer stored (uploads are kept for a day): upload it again.'
          : `The saved sheet ${source.key} is missing: save the settings with a sheet again.`,
      );
    }
    return new Uint8Array(await object.arrayBuffer());
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${FETCH_TIMEOUT_MS / 1000} s`)), FETCH_TIMEOUT_MS);
  try {
    const res = await fetchAllowed(source.url, sheetHosts, abort.signal);
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new SheetUnavailableError(`Fetching ${source.url} failed: HTTP ${res.status} ${res.statusText}`.trim());
    }
    return await readLimited(res, SHEET_LIMITS.maxBytes, source.url);
  } finally {
    clearTimeout(timer);
  }
}

/** The file name an address's sheet is known by. */
export const urlFileName = (url: string) =>
  safeFileName(decodeURIComponent(new URL(url).pathname.split('/').pop() || new URL(url).hostname));

/** The names of the area's example sheets. */
export async function exampleSheets(bucket: R2Bucket, area: ImportArea): Promise<string[]> {
  const listed = await bucket.list({ prefix: `${EXAMPLES_PREFIX}${area}/`, limit: 20 });
  return listed.objects.map((o) => o.key.slice(`${EXAMPLES_PREFIX}${area}/`.length)).filter((n) => /^[A-Za-z0-9._ -]{1,100}$/.test(n));
}
