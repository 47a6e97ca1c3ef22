import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ADDRESS_FAILURE_LIMIT } from '#shared/throttle.ts';
import { ratio2, toRecord, type PersonRow } from '../../workers/stats/src/statistics';
import { halfUp2 } from './raw-racing';
import { TOKEN, call, recentMeeting } from './helpers';
import { chunkedBody } from '../support/chunked-body';

const auth = { Authorization: `Bearer ${TOKEN}` };

const login = (address: string, password: string) =>
  call('/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'cf-connecting-ip': address },
    body: JSON.stringify({ username: 'admin', password }),
  });

describe('rounding: exact ratios, half up', () => {
  const row = (bands: PersonRow['bands'], wins = 0, meetings = 0): PersonRow => ({
    role: 'trainer',
    id: 1,
    name: 'A Trainer',
    starts: 40,
    wins,
    wins_30d: 0,
    meetings,
    pos_sum: 161,
    last_win_date: null,
    bands,
    top_horses: [],
  });

  it.each([
    // [wins, starts, baseline wins, baseline starts, iv]
    [2, 36, 204, 6885, 1.88],
    [1, 2, 24, 630, 13.13],
    [6, 14, 240, 882, 1.58],
  ])('iv of %i/%i against %i/%i is %d, not rounded down at the tie', (wins, starts, baseWins, baseStarts, iv) => {
    const record = toRecord(row([[2, starts, wins, wins, baseStarts, baseWins, baseWins]]));
    expect(record.price_band_ivs[1]!.iv).toBe(iv);
  });

  it('avg_per_meeting 23 ÷ 40 = 0.575 is 0.58; avg_finishing_pos 161 ÷ 40 = 4.025 is 4.03', () => {
    const record = toRecord(row([], 23, 40));
    expect(record.avg_per_meeting).toBe(0.58);
    expect(record.avg_finishing_pos).toBe(4.03);
  });

  it('percentages at a tie round up: 1 of 8 is 12.5, 1 of 16 is 6.25, 1 of 32 is 3.13, 1 of 80 is 1.25', () => {
    const record = toRecord({ ...row([[1, 32, 1, 1, 80, 1, 1]]), wins: 1, starts: 16 });
    expect(record.performance_365d.win_pct).toBe(6.25);
    expect(record.price_band_ivs[0]!.trainer_wps.win_pct).toBe(3.13);
    expect(record.price_band_ivs[0]!.baseline_wps.win_pct).toBe(1.25);
    expect(ratio2(100, 8)).toBe(12.5);
  });

  it('ratio2 agrees with the independent quotient-and-remainder rounding on every small fraction', () => {
    const differ: string[] = [];
    for (let d = 1; d <= 400; d++) for (let n = 0; n <= 2 * d; n++) if (ratio2(n, d) !== halfUp2(n, d)) differ.push(`${n}/${d}`);
    expect(differ).toEqual([]);
  });
});

describe('NUL in text input', () => {
  it.each(['/trainer-stats', '/jockey-stats'])('%s with a NUL courseName is 422 naming the field, not 500', async (path) => {
    const { date } = await recentMeeting();
    const res = await call(`${path}?date=${date}&courseName=%00`, { headers: auth });
    expect(res.status).toBe(422);
    const body = await res.json<{ detail: { loc: string[]; msg: string }[] }>();
    expect(body.detail[0]!.loc).toEqual(['query', 'courseName']);
    expect(body.detail[0]!.msg).toMatch(/NUL/);
  });

  it('a saved payload with NUL in a name is 422 before it reaches jsonb', async () => {
    const res = await call('/save-stats', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        date: '2026-01-01',
        course_id: 1,
        trainer_stats: [
          {
            id: 1,
            name: 'Bad\u0000Name',
            performance_365d: { wins: 0, starts: 0, win_pct: 0 },
            wins_30d: 0,
            avg_per_meeting: 0,
            last_win_date: null,
            avg_finishing_pos: null,
            top_horses: [],
            price_band_ivs: [],
          },
        ],
        jockey_stats: [],
      }),
    });
    expect(res.status).toBe(422);
  });
});

describe('POST /login throttle per client address', () => {
  it('429 with Retry-After after repeated wrong pairs from one address; the right pair still works elsewhere', async () => {
    const attacker = '203.0.113.50';
    const statuses: number[] = [];
    for (let i = 0; i < ADDRESS_FAILURE_LIMIT + 5; i++) {
      const res = await login(attacker, `wrong-password-${i}`);
      statuses.push(res.status);
      const body = await res.json<{ detail: string }>();
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(body.detail).toMatch(/Too many/);
      }
    }
    expect(statuses.slice(0, ADDRESS_FAILURE_LIMIT - 1).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(ADDRESS_FAILURE_LIMIT - 1).every((s) => s === 429)).toBe(true);
    expect((await login(attacker, 'test-admin-password')).status).toBe(429);
    const elsewhere = await login('198.51.100.77', 'test-admin-password');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('cache-control')).toBe('no-store');
    expect((await elsewhere.json<{ access_token: string }>()).access_token).toBe(TOKEN);
  });
});

describe('bodies', () => {
  it.each([
    ['/login', 200 * 1024],
    ['/api/logout', 2 * 1024 * 1024],
  ])('a chunked %s body of %i bytes is 413 {detail}, and the Worker answers the next request', async (path, size) => {
    const res = await exports.default.fetch(
      new Request(`http://stats${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: chunkedBody(size),
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect((await res.json<{ detail: string }>()).detail).toMatch(/larger than/);
    expect((await call('/health')).status).toBe(200);
  });

  it('a chunked /save-stats body without a token is 401 and the body is still read to its end', async () => {
    const res = await exports.default.fetch(
      new Request('http://stats/save-stats', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: chunkedBody(512 * 1024),
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(401);
    expect((await call('/health')).status).toBe(200);
  });
});

describe('headers', () => {
  it.each(['/', '/login', '/api-test', '/api-docs'])('%s has a CSP without inline script, frame protection and nosniff', async (path) => {
    const res = await call(path);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // No inline script left on the page for the policy to block.
    expect(await res.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('the JSON 404 that echoes courseName is nosniff', async () => {
    const { date } = await recentMeeting();
    const res = await call(`/trainer-stats?date=${date}&courseName=${encodeURIComponent('<script>x</script>')}`, { headers: auth });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
  });

  it('HSTS on https outside local development only', async () => {
    const https = await exports.default.fetch('https://stats.racing.example/health');
    expect(https.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    for (const url of ['http://localhost:8703/health', 'https://stats.localhost/health', 'http://stats/health']) {
      expect((await exports.default.fetch(url)).headers.get('strict-transport-security'), url).toBeNull();
    }
  });

  it('the login and tester scripts are served from the Worker', async () => {
    for (const path of ['/assets/login.js', '/assets/api-test.js']) {
      const res = await call(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/javascript/);
    }
  });
});
