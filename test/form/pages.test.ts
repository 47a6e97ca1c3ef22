import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFormApp } from '../../workers/form/src/app';
import { BASE, fetchForm, page, query, sessionCookie, untilCacheHit } from './helpers';

const today = env.RACING_TODAY;
let cookie: string;
let horse: { id: number; name: string; runs: number };
beforeAll(async () => {
  cookie = await sessionCookie();
  // The horse with the most runs, and one of its results.
  [horse] = (await query<{ id: number; name: string; runs: number }>(
    `select h.id, h.name, count(*)::int as runs from runners ru join horses h on h.id = ru.horse_id
     where not ru.scratched group by h.id order by 3 desc, h.id limit 1`,
  )) as [typeof horse];
});

const countRows = (html: string, marker: string) => {
  const table = html.split(marker)[1]?.split('</table>')[0] ?? '';
  return (table.split('<tbody>')[1]?.match(/<tr/g) ?? []).length;
};

/** The app with env overrides and its own execution context, as the runtime would call it. */
async function callApp(path: string, overrides: Record<string, string> = {}, options: Parameters<typeof createFormApp>[0] = {}) {
  const ctx = createExecutionContext();
  const res = await createFormApp(options).request(`${BASE}${path}`, { headers: { cookie } }, { ...env, ...overrides }, ctx);
  const html = await res.text();
  await waitOnExecutionContext(ctx);
  return { res, html };
}

describe('GET /form/runner/', () => {
  it('redirects to the brief form of the latest race winner when no default is configured', async () => {
    const [winner] = await query<{ horse_id: number }>(
      `select ru.horse_id from meetings m join races ra on ra.meeting_id = m.id join runners ru on ru.race_id = ra.id
       where m.date < $1 and not m.is_trial and ru.finishing_position = 1
       order by m.date desc, ra.start_time desc nulls last, ra.id desc limit 1`,
      [today],
    );
    const res = await fetchForm('/form/runner/', { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/form/runner/${winner!.horse_id}/?tab=brief`);
  });

  it('redirects to DEFAULT_HORSE_ID when configured', async () => {
    const { res } = await callApp('/form/runner/', { DEFAULT_HORSE_ID: '42' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/form/runner/42/?tab=brief');
  });

  it('a malformed DEFAULT_HORSE_ID is a configuration error naming it', async () => {
    const { res, html } = await callApp('/form/runner/', { DEFAULT_HORSE_ID: 'abc' });
    expect(res.status).toBe(500);
    expect(html).toContain('DEFAULT_HORSE_ID');
  });

  it('a missing secret is a configuration error naming it, never a default', async () => {
    const { res, html } = await callApp('/form/runner/1/', { SESSION_SECRET: '' });
    expect(res.status).toBe(500);
    expect(html).toContain('SESSION_SECRET');
  });
});

describe('GET /form/runner/<horse_id>/', () => {
  it('shows the horse, its runs (capped at 200), stats with definitions, trials, sales and the toolbar; brief by default', async () => {
    const { res, html } = await page(`/form/runner/${horse.id}/`, cookie);
    expect(res.status).toBe(200);
    expect(html).toContain(`<h1 data-horse-name="true">${horse.name.replace(/'/g, '&#39;')}</h1>`);
    expect(countRows(html, 'id="panel-brief"')).toBe(Math.min(200, horse.runs));
    expect(html).toMatch(/id="tab-brief"[^>]*aria-selected="true"/);
    // The detailed panel is left empty, for the script to fetch on first use (or the link to open).
    expect(html).toMatch(/id="panel-detailed"[^>]*hidden[^>]*data-src="\/form\/runner\/\d+\/\?tab=detailed/);
    expect(html).toContain('data-stats-summary');
    for (const name of ['career', 'last5', 'preferred_range', 'consecutive_wins', 'by_sot']) expect(html).toContain(`<code>${name}</code>`);
    expect(html).toContain('data-toolbar');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('career starts on the page equal the horse’s runs with a result', async () => {
    const [{ n, w }] = (await query<{ n: number; w: number }>(
      'select count(*)::int as n, count(*) filter (where finishing_position = 1)::int as w from runners where horse_id = $1 and finishing_position is not null',
      [horse.id],
    )) as [{ n: number; w: number }];
    const { html } = await page(`/form/runner/${horse.id}/`, cookie);
    expect(html).toMatch(new RegExp(`data-stat="career">${n}: ${w}-`));
  });

  it('tab=detailed: every stats group with definitions, every run field, trials and sales', async () => {
    const { html } = await page(`/form/runner/${horse.id}/?tab=detailed`, cookie);
    expect(html).toMatch(/id="tab-detailed"[^>]*aria-selected="true"/);
    expect(html).toMatch(/id="panel-brief"[^>]*hidden/);
    expect(html).not.toMatch(/id="panel-detailed"[^>]*hidden/);
    for (const group of ['by_country', 'by_jockey', 'by_trainer', 'by_distance', 'by_track', 'by_class', 'by_sot']) {
      expect(html).toContain(`data-stat-group="${group}"`);
    }
    expect(html).toContain('<code>preferred_range</code>');
    expect(countRows(html, 'id="panel-detailed"')).toBe(Math.min(200, horse.runs));
    expect(html).toContain('L600');
    expect(html).toContain('Barrier trials');
    expect(html).toContain('<h2 id="sales-head">Sales</h2>');
  });

  it('date and race pre-select the toolbar and list that race’s runners', async () => {
    const [run] = await query<{ race_id: number; date: string; meeting_id: number; field: number }>(
      `select ru.race_id, m.date::text as date, m.id as meeting_id, (select count(*)::int from runners x where x.race_id = ru.race_id) as field
       from runners ru join races ra on ra.id = ru.race_id join meetings m on m.id = ra.meeting_id
       where ru.horse_id = $1 and not ru.scratched order by m.date limit 1`,
      [horse.id],
    );
    const { html } = await page(`/form/runner/${horse.id}/?date=${run!.date}&race=${run!.race_id}`, cookie);
    expect(html).toContain(`name="date" value="${run!.date}"`);
    expect(html).toContain(`<option value="${run!.race_id}" selected="">`);
    expect(html).toContain(`<option value="${run!.meeting_id}" selected="">`);
    expect(countRows(html, 'data-race-runners')).toBe(run!.field);
  });

  it('a date alone selects the horse’s race that day', async () => {
    const [run] = await query<{ race_id: number; date: string }>(
      `select ru.race_id, m.date::text as date from runners ru join races ra on ra.id = ru.race_id join meetings m on m.id = ra.meeting_id
       where ru.horse_id = $1 and not ru.scratched order by m.date limit 1`,
      [horse.id],
    );
    const { html } = await page(`/form/runner/${horse.id}/?date=${run!.date}`, cookie);
    expect(html).toContain(`<option value="${run!.race_id}" selected="">`);
  });

  it('lists the horse’s sales', async () => {
    const [sale] = await query<{ horse_id: number; sale_name: string }>('select horse_id, sale_name from sales order by id limit 1');
    const { res, html } = await page(`/form/runner/${sale!.horse_id}/?tab=detailed`, cookie);
    expect(res.status).toBe(200);
    expect(html).toContain('data-sales');
    expect(html).toContain(sale!.sale_name);
  });

  it('a failing sales lookup leaves the page up with no sales', async () => {
    // A horse no other test opens, so nothing is cached for it yet.
    const [sale] = await query<{ horse_id: number }>('select horse_id from sales order by id desc limit 1');
    const { res, html } = await callApp(
      `/form/runner/${sale!.horse_id}/?tab=detailed`,
      {},
      {
        // A real database error: the sales' SQL reads a table that is not there, which fails the
        // page's one statement; the page is then read alone and the sales apart.
        salesSql: (horseId) => sql`(select json_agg(x) from sales_that_do_not_exist x where x.horse_id = ${horseId})`,
      },
    );
    expect(res.status).toBe(200);
    expect(html).toContain('data-sales-empty');
    expect(html).toContain('data-horse-name');
    expect(res.headers.get('x-form-cache')).toBe('runner_page=miss, sales=miss');
    // The page data was cached, the failed sales were not: the next view reads the sales alone.
    const again = await callApp(`/form/runner/${sale!.horse_id}/?tab=detailed`);
    expect(again.res.headers.get('x-form-cache')).toBe('runner_page=hit, sales=miss');
    expect(again.html).toContain('data-sales');
    expect(again.html).not.toContain('data-sales-empty');
  });

  it('an unknown horse: 200, an error page naming the horse and the id', async () => {
    const { res, html } = await page('/form/runner/2147483000/', cookie);
    expect(res.status).toBe(200);
    expect(html).toContain('Horse not found');
    expect(html).toContain('No horse with id 2147483000 was found.');
  });

  it.each([
    ['/form/runner/abc/', 'horse id'],
    ['/form/runner/0/', 'horse id'],
    ['/form/runner/-5/', 'horse id'],
    ['/form/runner/99999999999/', 'horse id'],
    ['/form/runner/1e3/', 'horse id'],
    ['/form/runner/1/?tab=full', 'tab must be brief or detailed'],
    ['/form/runner/1/?date=2026-02-30', 'date must be a real date'],
    ['/form/runner/1/?date=yesterday', 'date must be a real date'],
    ['/form/runner/1/?race=x1', 'race must be a race id'],
    ['/form/runner/1/?meeting=1.5', 'meeting must be a meeting id'],
  ])('bad input %s: 400 page saying what is wrong', async (path, words) => {
    const { res, html } = await page(path, cookie);
    expect(res.status).toBe(400);
    expect(html).toContain(words);
  });

  it('runner page data is cached (runner_page and sales kinds)', async () => {
    const path = `/form/runner/${horse.id}/?tab=brief`;
    await fetchForm(path, { cookie });
    const res = await untilCacheHit(path, cookie, 'runner_page');
    expect(res.headers.get('x-form-cache')).toMatch(/sales=(hit|miss)/);
  });
});

describe('GET /form/jockey/<id>/ and /form/trainer/<id>/', () => {
  it.each(['jockey', 'trainer'] as const)('%s: profile, runs (latest 200 at most), stats', async (kind) => {
    const column = kind === 'jockey' ? 'jockey_id' : 'trainer_id';
    const [person] = await query<{ id: number; name: string; runs: number }>(
      `select p.id, p.name, count(*)::int as runs from runners ru join ${kind}s p on p.id = ru.${column}
       where not ru.scratched group by p.id order by 3 desc limit 1`,
    );
    const { res, html } = await page(`/form/${kind}/${person!.id}/`, cookie);
    expect(res.status).toBe(200);
    expect(html).toContain(person!.name.replace(/'/g, '&#39;'));
    expect(countRows(html, 'id="panel-brief"')).toBe(Math.min(200, person!.runs));
    expect(html).toContain('data-stats-summary');
    const detailed = await page(`/form/${kind}/${person!.id}/?tab=detailed`, cookie);
    expect(detailed.html).toMatch(/id="tab-detailed"[^>]*aria-selected="true"/);
  });

  it.each([
    ['jockey', 'Jockey'],
    ['trainer', 'Trainer'],
  ])('an unknown %s: 200 naming the entity and the id', async (kind, title) => {
    const { res, html } = await page(`/form/${kind}/2147483001/`, cookie);
    expect(res.status).toBe(200);
    expect(html).toContain(`${title} not found`);
    expect(html).toContain('2147483001');
  });

  it.each(['/form/jockey/abc/', '/form/trainer/0/', '/form/jockey/1/?tab=x'])('bad input %s: 400', async (path) => {
    const { res } = await page(path, cookie);
    expect(res.status).toBe(400);
  });
});

describe('GET /form/guide/', () => {
  it('today by default: date strip, countries, every meeting with its races', async () => {
    const meetings = await query<{ id: number; races: number }>(
      `select m.id, (select count(*)::int from races r where r.meeting_id = m.id) as races from meetings m
       where m.date = $1 and not m.is_trial`,
      [today],
    );
    const { res, html } = await page('/form/guide/', cookie);
    expect(res.status).toBe(200);
    expect(html).toContain(`aria-current="date"`);
    expect(html).toContain(`Meetings on ${today}`);
    expect((html.match(/data-meeting="/g) ?? []).length).toBe(meetings.length);
    expect((html.match(/data-race-link="/g) ?? []).length).toBe(meetings.reduce((n, m) => n + m.races, 0));
    expect(html).toContain('Pick a race to see its runners.');
  });

  it('country filters the meetings', async () => {
    const [{ country, n }] = (await query<{ country: string; n: number }>(
      `select c.country, count(*)::int as n from meetings m join courses c on c.id = m.course_id
       where m.date = $1 and not m.is_trial group by 1 order by 1 limit 1`,
      [today],
    )) as [{ country: string; n: number }];
    const { html } = await page(`/form/guide/?date=${today}&country=${country}`, cookie);
    expect((html.match(/data-meeting="/g) ?? []).length).toBe(n);
    expect(html).toMatch(new RegExp(`country=${country}" aria-current="page"`));
  });

  it('race shows that race’s runners inline', async () => {
    const [race] = await query<{ id: number; name: string; n: number }>(
      `select ra.id, ra.name, (select count(*)::int from runners x where x.race_id = ra.id) as n
       from races ra join meetings m on m.id = ra.meeting_id where m.date = $1 order by ra.id limit 1`,
      [today],
    );
    const { html } = await page(`/form/guide/?date=${today}&race=${race!.id}`, cookie);
    expect(html).toContain(race!.name.replace(/'/g, '&#39;'));
    expect(countRows(html, 'data-race-runners')).toBe(race!.n);
  });

  it('a date without racing and an unknown race say so', async () => {
    const { res, html } = await page('/form/guide/?date=1990-01-01&race=2147483002', cookie);
    expect(res.status).toBe(200);
    expect(html).toContain('No meetings on this date.');
    expect(html).toContain('Race 2147483002 was not found.');
  });

  it.each(['?date=2026-02-29', '?date=20261123', '?country=australia', '?country=%3Cscript%3E', '?race=abc'])(
    'bad input %s: 400',
    async (qs) => {
      const { res, html } = await page(`/form/guide/${qs}`, cookie);
      expect(res.status).toBe(400);
      expect(html).not.toContain('<script>');
    },
  );
});

describe('GET /form/search/ (the search box without script)', () => {
  it('lists matching horses as links to their form', async () => {
    const { html } = await page(`/form/search/?q=${encodeURIComponent(horse.name.slice(0, 6))}`, cookie);
    expect(html).toContain(`href="/form/runner/${horse.id}/"`);
  });

  it('asks for 3 letters, and refuses over 100', async () => {
    expect((await page('/form/search/?q=ab', cookie)).html).toContain('at least 3 letters');
    expect((await page(`/form/search/?q=${'x'.repeat(101)}`, cookie)).res.status).toBe(400);
  });
});

describe('database unreachable', () => {
  it('a page is a 503 page, a lookup a 503 JSON body, never a 500 or a hang', async () => {
    const down = { DATABASE_URL: 'postgres://racing:secret@127.0.0.1:1/racing' };
    const pageRes = await callApp('/form/jockey/2147480000/', down);
    expect(pageRes.res.status).toBe(503);
    expect(pageRes.html).toContain('Racing data unavailable');
    expect(pageRes.html).not.toContain('secret');
    const api = await callApp('/form/api/runners/?race_id=2147480000', down);
    expect(api.res.status).toBe(503);
    expect(JSON.parse(api.html)).toMatchObject({ error: 'database_unavailable' });
  });
});

describe('addresses', () => {
  it('/ and /form go to the login page; paths without their slash get it', async () => {
    expect((await fetchForm('/')).headers.get('location')).toBe('/form/');
    expect((await fetchForm('/form')).headers.get('location')).toBe('/form/');
    const res = await fetchForm('/form/runner/12?tab=detailed', { cookie });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/form/runner/12/?tab=detailed');
  });

  it('an unknown page is a 404 page; an address past 4096 characters a 414 page', async () => {
    const missing = await page('/form/nothing/here/', cookie);
    expect(missing.res.status).toBe(404);
    expect(missing.html).toContain('Page not found');
    const long = await page(`/form/guide/?q=${'a'.repeat(5000)}`, cookie);
    expect(long.res.status).toBe(414);
  });
});
