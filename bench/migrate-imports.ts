import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { startLocalWorker } from '../scripts/local-worker.ts';
import { withClient } from '../scripts/racing/pg-client.ts';
import { ROOT, applyLocalD1Migrations, executeD1 } from '../scripts/workers.ts';
import { SEGMENT_SECONDS } from '../workers/migrate/src/imports/areas.ts';
import { writeXlsx } from '../scripts/sheet-writers.ts';
import { randomBytes, sha256Hex, toBase64Url, utf8 } from '#shared/crypto.ts';
import type { BenchContext } from './context.ts';
import { workerdDescendants } from './load/procs.ts';
import { checkpoint, cpuSeconds, mb, memoryKb, postgresCpuSeconds } from './migrate.ts';

// npm run bench -- migrate-imports: the migration app's sectional-times spreadsheet import, end to
// end through the migrate Worker in local workerd against the bench racing database (PostgreSQL 15).
// A 100,000-row .xlsx (BENCH_IMPORT_ROWS) of L600/L400/L200 times of runners of already-run races
// that have no sectional times is uploaded (POST /Sectional/Preview: upload, parse, check, store),
// started (POST /Sectional/Start) and polled (GET /api/sectional/progress/<jobId>) until the
// ImportJob Durable Object has committed every row. Reports the preview, the job and the total
// times, rows per second, the peak RSS of the workerd process(es) hosting the Worker and the
// object, then imports the same sheet again (every row unchanged). The imported times are deleted
// afterwards, so the racing data is left as it was loaded. BENCH_WORKER_LOG=info prints the
// Worker's request log.

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
const CONFIG = 'workers/migrate/wrangler.toml';
const SEGMENTS = ['L600', 'L400', 'L200'] as const;
const POLL_MS = 150;
const SAMPLE_MS = 50;
const SESSION_SECRET = 'bench-migrate-session-secret-0123456789abcdef';
const OPERATOR = { id: 1, email: 'operator@racing.test', name: 'Bench Operator' };

/** The runners whose times the bench imports (and deletes again), with the racing data they belong to. */
const MARKER_TABLE = `CREATE TABLE IF NOT EXISTS bench_sectional_import (loaded_at timestamptz NOT NULL, runner_ids integer[] NOT NULL)`;

type Runner = { id: number; date: string; course: string; race: number; horse: string; tab: number };

/**
 * Removes what an earlier run left (its times, should it have stopped before deleting them), then
 * picks the first runners (newest meetings first) of already-run races without any sectional time.
 */
async function chooseRunners(url: string, today: string, count: number): Promise<Runner[]> {
  return withClient(url, async (client) => {
    await client.query(MARKER_TABLE);
    const loaded = (await client.query<{ loaded_at: Date }>('SELECT loaded_at FROM racing_dataset LIMIT 1')).rows[0]?.loaded_at;
    if (!loaded) throw new Error('the racing bench data is not loaded');
    // Ids of an earlier load name other runners: their times are loaded data, not left-overs.
    await client.query(
      `DELETE FROM sectional_times s USING bench_sectional_import b WHERE b.loaded_at = $1 AND s.runner_id = ANY(b.runner_ids)`,
      [loaded],
    );
    await client.query('DELETE FROM bench_sectional_import');
    const runners = await client.query<Runner>(
      `WITH untimed AS (
         SELECT r.id, r.race_number, m.id AS meeting_id, m.date, m.course_id FROM races r JOIN meetings m ON m.id = r.meeting_id
         WHERE NOT m.is_trial AND m.date < $1::date
           AND NOT EXISTS (SELECT 1 FROM runners x JOIN sectional_times s ON s.runner_id = x.id WHERE x.race_id = r.id))
       SELECT ru.id, u.date::text AS date, c.name AS course, u.race_number AS race, h.name AS horse, ru.tab_number AS tab
       FROM untimed u JOIN courses c ON c.id = u.course_id JOIN runners ru ON ru.race_id = u.id JOIN horses h ON h.id = ru.horse_id
       WHERE NOT ru.scratched AND ru.finishing_position IS NOT NULL
       ORDER BY u.date DESC, u.meeting_id, u.race_number, ru.tab_number
       LIMIT $2`,
      [today, count],
    );
    if (runners.rows.length < count) throw new Error(`only ${runners.rows.length} runners of untimed races; ${count} needed`);
    await client.query('INSERT INTO bench_sectional_import (loaded_at, runner_ids) VALUES ($1, $2)', [
      loaded,
      runners.rows.map((r) => r.id),
    ]);
    await client.query('VACUUM ANALYZE sectional_times');
    return runners.rows;
  });
}

/** Deterministic plausible times (inside SEGMENT_SECONDS), three a runner, ROWS rows in all. */
function sheetRows(runners: Runner[]): (string | number | Date)[][] {
  let seed = 20_261_124;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const rows: (string | number | Date)[][] = [];
  for (const r of runners) {
    const l600 = 33 + next() * 4;
    const times = { L600: l600, L400: l600 * (0.645 + next() * 0.02), L200: l600 * 0.32 + next() * 0.4 };
    for (const segment of SEGMENTS) {
      if (rows.length === ROWS) break;
      const [lo, hi] = SEGMENT_SECONDS[segment]!;
      const time = Math.round(Math.min(hi, Math.max(lo, times[segment])) * 100) / 100;
      rows.push([new Date(`${r.date}T00:00:00Z`), r.course, r.race, r.horse, r.tab, segment, time]);
    }
  }
  return rows;
}

/** A signed-in Operator: a session row in the Worker's local D1 and the session cookie a sign-in would set. */
async function operatorSession(persistTo: string): Promise<string> {
  const sid = toBase64Url(randomBytes(32));
  const idHash = await sha256Hex(sid);
  const now = Date.now();
  const expiresAt = now + 86_400_000;
  executeD1(
    CONFIG,
    'DB',
    [
      `INSERT INTO login_sessions (id_hash, user_id, email, name, role, refresh_token_sealed, access_expires_at, expires_at) VALUES ('${idHash}', ${OPERATOR.id}, '${OPERATOR.email}', '${OPERATOR.name}', 'Operator', 'v1.none.none', ${expiresAt}, ${expiresAt})`,
    ],
    { persistTo },
  );
  // As workers/migrate/src/session.ts signs it: HS256 with the key workers/shared/crypto.ts
  // derives from SESSION_SECRET (HKDF-SHA256, the label as salt), issuer "migrate".
  const base = await crypto.subtle.importKey('raw', utf8(SESSION_SECRET), 'HKDF', false, ['deriveKey']);
  const key = await crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: utf8('migrate-session-jwt'), info: new Uint8Array() },
    base,
    { name: 'HMAC', hash: 'SHA-256', length: 256 },
    false,
    ['sign'],
  );
  const jwt = await new SignJWT({ sid, email: OPERATOR.email, name: OPERATOR.name, role: 'Operator', uexp: Math.floor(expiresAt / 1000) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(OPERATOR.id))
    .setIssuer('migrate')
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .sign(key);
  return `AuthToken=${jwt}`;
}

type Progress = {
  state: string;
  processed: number;
  total: number;
  inserted: number;
  updated: number;
  unchanged: number;
  skipped: number;
  log: { level: string; message: string }[];
  summary: { sheetRows: number | null; problemCounts: Record<string, number>; errors: string[] };
};

type ImportFigures = {
  previewMs: number;
  /** Start posted → the job seen with its sheet read and checked (total known). */
  readMs: number;
  jobMs: number;
  totalMs: number;
  peakKb: number;
  progress: Progress;
  previewValid: number | null;
  cpu: { workerd: number; postgres: number | null };
};

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const pad = (label: string) => `  ${label.padEnd(42)}`;

export async function benchMigrateImports({ url, relay, today }: BenchContext) {
  const runners = await chooseRunners(url, today, Math.ceil(ROWS / SEGMENTS.length));
  const rows = sheetRows(runners);
  const madeStarted = performance.now();
  const xlsx = writeXlsx(['Date', 'Course', 'Race', 'Horse', 'Tab', 'Segment', 'Time'], rows, { sheetName: 'Sectionals' });
  const madeMs = performance.now() - madeStarted;
  const meetings = new Set(runners.map((r) => `${r.date} ${r.course}`)).size;
  console.log(
    `\nSectional import: ${rows.length.toLocaleString('en')} rows (${runners.length.toLocaleString('en')} runners of ${meetings} meetings' untimed races × L600/L400/L200),` +
      ` .xlsx of ${(xlsx.byteLength / 1024 / 1024).toFixed(2)} MB (written in ${s(madeMs)}) → migrate Worker + ImportJob DO → bench database (PostgreSQL 15)`,
  );
  await checkpoint(url);

  const state = mkdtempSync(join(tmpdir(), 'bench-migrate-imports-'));
  try {
    applyLocalD1Migrations(CONFIG, 'DB', state);
    const session = await operatorSession(state);
    const worker = await startLocalWorker({
      config: join(ROOT, CONFIG),
      persistTo: state,
      // An empty dev registry: the AUTH binding resolves (the stored session needs no call to it).
      registry: join(state, 'registry'),
      logLevel: process.env.BENCH_WORKER_LOG === 'info' ? 'info' : 'error',
      vars: {
        DATABASE_URL: url,
        PG_WS_PROXY: relay,
        AUTH_CLIENT_SECRET: 'bench-unused-auth-client-secret',
        SESSION_SECRET,
        CONFIG_ENCRYPTION_KEY: 'bench-migrate-config-encryption-key-0123456789',
      },
    });
    try {
      const base = (await worker.url).toString().replace(/\/$/, '');
      // The area's page: the Worker loaded, the anti-forgery nonce cookie and its token.
      const page = await fetch(`${base}/Sectional`, { headers: { cookie: session }, redirect: 'manual' });
      const html = await page.text();
      if (page.status !== 200) throw new Error(`GET /Sectional: ${page.status} ${html.slice(0, 300)}`);
      const nonce = page.headers
        .getSetCookie()
        .map((c) => c.split(';')[0]!)
        .find((c) => c.startsWith('migrate_csrf='));
      const token = /name="request-verification-token" content="([^"]+)"/.exec(html)?.[1];
      if (!nonce || !token) throw new Error('no anti-forgery token on /Sectional');
      const cookie = `${session}; ${nonce}`;
      const baselineKb = Math.max(0, ...workerdDescendants().map((pid) => memoryKb(pid, 'VmRSS')));

      const runImport = async (): Promise<ImportFigures> => {
        let peakKb = 0;
        const cpuAt = new Map<number, number>();
        const cpuLast = new Map<number, number>();
        const sample = () => {
          for (const pid of workerdDescendants()) {
            if (!cpuAt.has(pid)) cpuAt.set(pid, cpuSeconds(pid));
            cpuLast.set(pid, cpuSeconds(pid));
            peakKb = Math.max(peakKb, memoryKb(pid, 'VmRSS'));
          }
        };
        sample();
        const postgresBefore = postgresCpuSeconds();
        const sampler = setInterval(sample, SAMPLE_MS);
        try {
          const started = performance.now();
          const form = new FormData();
          form.append('__RequestVerificationToken', token);
          form.append('fk.runner', 'horse');
          form.append(
            'excelFile',
            new Blob([xlsx], { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' }),
            'sectional-bench.xlsx',
          );
          const preview = await fetch(`${base}/Sectional/Preview`, { method: 'POST', body: form, headers: { cookie }, redirect: 'manual' });
          const previewHtml = await preview.text();
          const previewMs = performance.now() - started;
          const tempPath = /name="tempPath" value="([^"]+)"/.exec(previewHtml)?.[1];
          if (preview.status !== 200 || !tempPath) {
            throw new Error(`POST /Sectional/Preview: ${preview.status} ${preview.headers.get('location') ?? previewHtml.slice(0, 500)}`);
          }
          const start = await fetch(`${base}/Sectional/Start`, {
            method: 'POST',
            body: new URLSearchParams({
              __RequestVerificationToken: token,
              tempPath: decodeHtml(tempPath),
              'fk.runner': 'horse',
              filter: '',
            }),
            headers: { cookie },
            redirect: 'manual',
          });
          const location = start.headers.get('location') ?? '';
          const jobId = /jobId=([0-9a-f-]{36})/.exec(location)?.[1];
          if (start.status !== 302 || !jobId)
            throw new Error(`POST /Sectional/Start: ${start.status} ${location} ${(await start.text()).slice(0, 300)}`);
          const startedJob = performance.now();
          let readMs = 0;
          let progress: Progress;
          for (;;) {
            await new Promise((resolve) => setTimeout(resolve, POLL_MS));
            const res = await fetch(`${base}/api/sectional/progress/${jobId}`, {
              headers: { cookie },
              redirect: 'manual',
              signal: AbortSignal.timeout(120_000),
            }).catch((error: unknown) => {
              throw new Error(
                `GET /api/sectional/progress/${jobId} unanswered after ${s(performance.now() - startedJob)} of the job (${error instanceof Error ? error.message : error})`,
              );
            });
            if (res.status !== 200) throw new Error(`progress: ${res.status} ${(await res.text()).slice(0, 300)}`);
            progress = (await res.json()) as Progress;
            if (!readMs && progress.total > 0) readMs = performance.now() - startedJob;
            if (['completed', 'failed', 'cancelled'].includes(progress.state)) break;
          }
          const ended = performance.now();
          sample();
          if (progress.state !== 'completed') {
            throw new Error(
              `the import ${progress.state}: ${progress.summary.errors.join('; ')}\n${progress.log.map((l) => `${l.level} ${l.message}`).join('\n')}`,
            );
          }
          const previewValid = /data-valid[^>]*>([\d,]+)</.exec(previewHtml)?.[1];
          return {
            previewMs,
            readMs: readMs || ended - startedJob,
            jobMs: ended - startedJob,
            totalMs: ended - started,
            peakKb,
            progress,
            previewValid: previewValid ? Number(previewValid.replace(/,/g, '')) : null,
            cpu: {
              workerd: [...cpuLast].reduce((n, [pid, cpu]) => n + cpu - cpuAt.get(pid)!, 0),
              postgres: postgresBefore === null ? null : postgresCpuSeconds()! - postgresBefore,
            },
          };
        } finally {
          clearInterval(sampler);
        }
      };

      const first = await runImport();
      const counted = await withClient(url, async (client) => {
        const { rows: found } = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM sectional_times WHERE runner_id = ANY($1::int[])',
          [runners.map((r) => r.id)],
        );
        return found[0]!.n;
      });
      await checkpoint(url);
      const second = await runImport();
      const pids = workerdDescendants();
      const hwmKb = Math.max(0, ...pids.map((pid) => memoryKb(pid, 'VmHWM')));

      const p = first.progress;
      const committed = p.processed;
      const problems = Object.entries(p.summary.problemCounts)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ');
      console.log(`${pad('upload + parse + check (Preview)')}${s(first.previewMs)}`);
      console.log(
        `${pad('job, Start → completed')}${s(first.jobMs)}   (sheet read and checked again, seen at ${s(first.readMs)}; writing ${s(first.jobMs - first.readMs)}, chunks of 2,000)`,
      );
      console.log(
        `${pad('total, upload → committed')}${s(first.totalMs)}   ${Math.round((committed / first.totalMs) * 1000).toLocaleString('en')} rows/s`,
      );
      console.log(
        `${pad('rows')}${p.summary.sheetRows?.toLocaleString('en')} in the sheet: ${p.inserted.toLocaleString('en')} inserted, ${p.updated} updated, ${p.unchanged} unchanged, ${p.skipped} skipped${problems ? ` (${problems})` : ''}`,
      );
      const expected = p.total;
      console.log(
        `${pad('check')}${counted === expected ? 'OK' : 'MISMATCH'}: ${counted.toLocaleString('en')} sectional_times rows for those runners, ${expected.toLocaleString('en')} valid rows in the sheet` +
          (first.previewValid !== null && first.previewValid !== expected ? ` (the preview said ${first.previewValid})` : ''),
      );
      console.log(
        `${pad('CPU during the import')}workerd ${first.cpu.workerd.toFixed(1)} s` +
          (first.cpu.postgres === null ? '' : `, PostgreSQL backends ${first.cpu.postgres.toFixed(1)} s`),
      );
      console.log(
        `${pad('workerd memory (Worker + ImportJob DO)')}peak RSS ${mb(first.peakKb)} (sampled every ${SAMPLE_MS} ms; before the upload ${mb(baselineKb)}; ${pids.length} workerd process${pids.length === 1 ? '' : 'es'})`,
      );
      const q = second.progress;
      console.log(
        `${pad('second import of the same sheet')}${s(second.totalMs)}   (Preview ${s(second.previewMs)}, job ${s(second.jobMs)}; ${q.inserted} inserted, ${q.updated} updated, ${q.unchanged.toLocaleString('en')} unchanged)` +
          (q.inserted === 0 && q.updated === 0 ? '' : '   NOT IDEMPOTENT'),
      );
      console.log(
        `${pad('')}peak RSS ${mb(second.peakKb)}; workerd CPU ${second.cpu.workerd.toFixed(1)} s; process high-water mark over both ${mb(hwmKb)}`,
      );
      console.log(`${pad('load average (1 min)')}${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
      if (counted !== expected) throw new Error(`sectional_times rows for the runners: ${counted}, expected ${expected}`);
    } finally {
      await worker.dispose();
    }
  } finally {
    rmSync(state, { recursive: true, force: true });
    await withClient(url, async (client) => {
      await client.query('DELETE FROM sectional_times WHERE runner_id = ANY($1::int[])', [runners.map((r) => r.id)]);
      await client.query('DELETE FROM bench_sectional_import');
    });
  }
}

function decodeHtml(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}
