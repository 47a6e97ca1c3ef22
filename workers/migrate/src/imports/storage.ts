import { readCapped } from '#shared/body.ts';
import type { ImportArea } from './areas.ts';
import type { SheetSource } from './jobs.ts';
import { SHEET_LIMITS } from './sheet.ts';

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
  const cleaned = base.replace(/[^A-Za-z0-9._ -]+/g, '_').replace(/^[ .]+/, '').slice(-100);
  return cleaned || 'sheet';
}

/** `tmp/<area>/<uuid>/<file name>`: what Preview stores and Start posts back. */
export const TEMP_PATH = /^tmp\/(BarrierTrials|Sectional)\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[A-Za-z0-9._ -]{1,100}$/;

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

/** The sheet's bytes, from R2 or its address. */
export async function fetchSheet(bucket: R2Bucket, source: SheetSource): Promise<Uint8Array> {
  if (source.kind === 'r2') {
    const object = await bucket.get(source.key);
    if (!object) {
      throw new SheetUnavailableError(
        source.key.startsWith(TEMP_PREFIX) ? 'The uploaded sheet is no longer stored (uploads are kept for a day): upload it again.' : `The saved sheet ${source.key} is missing: save the settings with a sheet again.`,
      );
    }
    return new Uint8Array(await object.arrayBuffer());
  }
  if (!isSheetUrl(source.url)) throw new SheetUnavailableError(`${source.url} is not an https:// address.`);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${FETCH_TIMEOUT_MS / 1000} s`)), FETCH_TIMEOUT_MS);
  try {
    let res: Response;
    try {
      res = await fetch(source.url, { signal: abort.signal, headers: { accept: 'text/csv, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, */*' } });
    } catch (error) {
      throw new SheetUnavailableError(`Fetching ${source.url} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
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
export const urlFileName = (url: string) => safeFileName(decodeURIComponent(new URL(url).pathname.split('/').pop() || new URL(url).hostname));

/** The names of the area's example sheets. */
export async function exampleSheets(bucket: R2Bucket, area: ImportArea): Promise<string[]> {
  const listed = await bucket.list({ prefix: `${EXAMPLES_PREFIX}${area}/`, limit: 20 });
  return listed.objects.map((o) => o.key.slice(`${EXAMPLES_PREFIX}${area}/`.length)).filter((n) => /^[A-Za-z0-9._ -]{1,100}$/.test(n));
}
