import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { beforeAll, describe, expect, it } from 'vitest';
import * as schema from '#d1/mail/schema.ts';
import { createRecategoriseJob } from '../../workers/mail/src/ai/jobs';
import { type StandinMailbox, type TestSession, connectedMailbox, cookieFrom, directSession, newUserId, send } from './helpers';

type Category = { name: string; rule: string; reply_mode: string; emails: number };
type Prompt = { name: string; body: string; custom: boolean };
type Job = { job_id: string; status: string; total: number; done: number; changed: number };
type Summary = { message_id: string; category: string; subject: string };

const db = drizzle(env.DB, { schema });

let box: StandinMailbox;
let session: TestSession;

const getJson = async <T>(path: string, s = session) => {
  const res = await send(path, { cookie: s.cookie });
  return { status: res.status, body: (await res.json()) as T };
};
const categories = async (s = session) => (await getJson<{ items: Category[] }>('/api/admin/categories', s)).body.items;
const category = async (name: string, s = session) => (await categories(s)).find((x) => x.name === name);
const prompt = async (path: string, s = session) => (await getJson<Prompt>(`/api/admin/llm-prompts/${path}`, s)).body;
const jobsOf = (userId: number) => db.select().from(schema.aiJobs).where(eq(schema.aiJobs.userId, userId)).all();

/** A form post as the page sends it: the session's cookie and its anti-forgery field (unless `csrf: null`). */
function post(
  path: string,
  form: Record<string, string>,
  s: TestSession = session,
  options: { csrf?: string | null; headers?: Record<string, string> } = {},
) {
  const token = options.csrf === undefined ? s.csrf : options.csrf;
  return send(path, {
    method: 'POST',
    cookie: s.cookie,
    form: token === null ? form : { csrf_token: token, ...form },
    headers: options.headers,
  });
}

/** Follows a post's redirect the way a browser does (with the flash cookie it set): the page's HTML. */
async function follow(res: Response, s: TestSession = session): Promise<string> {
  expect(res.status, await res.clone().text()).toBe(303);
  expect(res.headers.get('location')).toBe('/settings');
  const flash = cookieFrom(res, 'mail_flash');
  const page = await send('/settings', { cookie: flash ? `${s.cookie}; ${flash}` : s.cookie });
  expect(page.status).toBe(200);
  return page.text();
}

/** The flash message of a page, as text. */
const flashOf = (html: string) => /<p class="flash (notice|error)"[^>]*>([^<]*)<\/p>/.exec(html)?.slice(1);
/** The message shown beside a field (by the field's id). */
const fieldError = (html: string, id: string) => new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(html)?.[1];
const fieldInvalid = (html: string, id: string) =>
  new RegExp(`id="${id}"[^>]*aria-invalid="true"`).test(html) || new RegExp(`aria-invalid="true"[^>]*id="${id}"`).test(html);

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('settings'));
});

describe('the page', () => {
  it('shows categories, prompts, users and the re-categorisation; every form carries the anti-forgery field', async () => {
    expect((await post('/settings/categories', { name: 'Shown', rule: 'shown rule', reply_mode: 'manual' })).status).toBe(303);
    const res = await send('/settings', { cookie: session.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    for (const part of [
      'data-section="categories"',
      'data-section="prompts"',
      'data-section="users"',
      'action="/settings/recategorise"',
      'data-category="Shown"',
      'data-prompt="summarise"',
      'href="/settings"',
    ])
      expect(html).toContain(part);
    const forms = html.match(/<form[\s\S]*?<\/form>/g)!;
    expect(forms.length).toBeGreaterThan(8);
    for (const form of forms) expect(form).toContain(`name="csrf_token" value="${session.csrf}"`);
  });

  it('without a session goes to the login form; an account not allowed the assistant is refused, a listed one sees no user management', async () => {
    expect((await send('/settings')).headers.get('location')).toBe('/login?next=%2Fsettings');
    const outsider = await directSession(`outsider-${newUserId()}@elsewhere.test`);
    const refused = await send('/settings', { cookie: outsider.cookie });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('may not use the assistant');
    const listed = await directSession(`listed-${newUserId()}@elsewhere.test`);
    expect((await post('/settings/users', { email: listed.email })).status).toBe(303);
    const page = await send('/settings', { cookie: listed.cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-section="categories"');
    expect(html).not.toContain('data-section="users"');
  });
});

describe('categories', () => {
  it('creates a category, starts the re-categorisation of stored e-mails and offers the recent mail', async () => {
    const before = (await jobsOf(session.userId)).length;
    const html = await follow(
      await post('/settings/categories', { name: '  Trackwork ', rule: 'trackwork gallop barrier trial', reply_mode: 'no_reply' }),
    );
    expect(flashOf(html)?.[0]).toBe('notice');
    expect(html).toContain('recategorise-box offered');
    expect(await category('Trackwork')).toMatchObject({ rule: 'trackwork gallop barrier trial', reply_mode: 'no_reply' });
    expect((await jobsOf(session.userId)).length).toBe(before + 1);
    // the flash is shown once
    expect(flashOf(await (await send('/settings', { cookie: session.cookie })).text())).toBeUndefined();
  });

  it('a mistake shows the form again with the input and the message beside the field; nothing is written', async () => {
    const before = await categories();
    const empty = await post('/settings/categories', { name: '', rule: 'kept rule text', reply_mode: 'draft' });
    expect(empty.status).toBe(400);
    const html = await empty.text();
    expect(fieldInvalid(html, 'new-name')).toBe(true);
    expect(fieldError(html, 'new-name')).toBeTruthy();
    expect(html).toContain('kept rule text');
    expect(html).toMatch(/<option value="draft" selected/);

    const reserved = await post('/settings/categories', { name: 'Unknown', rule: '', reply_mode: 'manual' });
    expect(reserved.status).toBe(400);
    expect(fieldError(await reserved.text(), 'new-name')).toContain('reserved');
    const badName = await post('/settings/categories', { name: '<script>', rule: '', reply_mode: 'manual' });
    expect(badName.status).toBe(400);
    expect(await badName.text()).not.toContain('<script>');
    const badMode = await post('/settings/categories', { name: 'Mode', rule: '', reply_mode: 'sometimes' });
    expect(badMode.status).toBe(400);
    expect(fieldError(await badMode.text(), 'new-mode')).toBeTruthy();

    expect((await post('/settings/categories', { name: 'Dupe', rule: '', reply_mode: 'manual' })).status).toBe(303);
    const dupe = await post('/settings/categories', { name: 'Dupe', rule: 'second', reply_mode: 'manual' });
    expect(dupe.status).toBe(409);
    expect(fieldError(await dupe.text(), 'new-name')).toContain('already');
    expect((await categories()).length).toBe(before.length + 1);
  });

  it('refuses NUL and over-long text with a 4xx naming the field; an oversized body is 413', async () => {
    const before = await categories();
    const nul = await post('/settings/categories', { name: 'Nul', rule: 'a\u0000b', reply_mode: 'manual' });
    expect(nul.status).toBe(400);
    const nulHtml = await nul.text();
    expect(fieldError(nulHtml, 'new-rule')).toMatch(/NUL/);
    expect(nulHtml).not.toContain('\u0000');
    const nulName = await post('/settings/categories', { name: 'N\u0000ul', rule: '', reply_mode: 'manual' });
    expect(nulName.status).toBe(400);
    const long = await post('/settings/categories', { name: 'Long', rule: 'x'.repeat(4001), reply_mode: 'manual' });
    expect(long.status).toBe(400);
    expect(fieldError(await long.text(), 'new-rule')).toContain('4000');
    const longName = await post('/settings/categories', { name: 'n'.repeat(65), rule: '', reply_mode: 'manual' });
    expect(longName.status).toBe(400);
    const huge = await post('/settings/categories', { name: 'Huge', rule: 'x'.repeat(300 * 1024), reply_mode: 'manual' });
    expect(huge.status).toBe(413);
    expect(await categories()).toEqual(before);
  });

  it('renames a category with a new rule and reply mode (its reply prompt moves with it), refuses a taken name, deletes', async () => {
    await follow(await post('/settings/categories', { name: 'Vets', rule: 'vet', reply_mode: 'manual' }));
    await follow(await post('/settings/prompts', { category: 'Vets', body: 'Reply kindly to the vet.' }));
    const jobs = (await jobsOf(session.userId)).length;
    const html = await follow(
      await post('/settings/categories/update', {
        category: 'Vets',
        name: 'Veterinary',
        rule: 'vet veterinary lameness',
        reply_mode: 'draft',
      }),
    );
    expect(flashOf(html)?.[1]).toContain('Veterinary');
    expect(html).toContain('recategorise-box offered');
    expect(await category('Vets')).toBeUndefined();
    expect(await category('Veterinary')).toMatchObject({ rule: 'vet veterinary lameness', reply_mode: 'draft' });
    expect(await prompt('category/Veterinary')).toMatchObject({ body: 'Reply kindly to the vet.', custom: true });
    expect((await jobsOf(session.userId)).length).toBe(jobs + 1);

    // only the reply mode: no re-categorisation
    await follow(
      await post('/settings/categories/update', {
        category: 'Veterinary',
        name: 'Veterinary',
        rule: 'vet veterinary lameness',
        reply_mode: 'manual',
      }),
    );
    expect((await jobsOf(session.userId)).length).toBe(jobs + 1);
    expect((await category('Veterinary'))?.reply_mode).toBe('manual');

    await follow(await post('/settings/categories', { name: 'Farriers', rule: '', reply_mode: 'manual' }));
    const taken = await post('/settings/categories/update', {
      category: 'Veterinary',
      name: 'Farriers',
      rule: 'changed rule',
      reply_mode: 'manual',
    });
    expect(taken.status).toBe(409);
    const takenHtml = await taken.text();
    expect(takenHtml).toContain('changed rule');
    expect(takenHtml).toMatch(/<p class="field-error" id="cat-\d+-name-error">[^<]*already/);
    expect((await category('Veterinary'))?.rule).toBe('vet veterinary lameness');
    const nul = await post('/settings/categories/update', {
      category: 'Veterinary',
      name: 'Veterinary',
      rule: '\u0000',
      reply_mode: 'manual',
    });
    expect(nul.status).toBe(400);
    expect((await category('Veterinary'))?.rule).toBe('vet veterinary lameness');

    const deleted = await follow(await post('/settings/categories/delete', { category: 'Veterinary' }));
    expect(flashOf(deleted)?.[0]).toBe('notice');
    expect(await category('Veterinary')).toBeUndefined();
    const gone = await follow(await post('/settings/categories/delete', { category: 'Veterinary' }));
    expect(flashOf(gone)?.[0]).toBe('error');
  });
});

describe('forms naming no category', () => {
  it('a category field holding NUL, over 64 characters or naming nothing changes nothing and says so', async () => {
    await follow(await post('/settings/categories', { name: 'Kept', rule: 'kept', reply_mode: 'manual' }));
    const before = await categories();
    for (const category of ['Ke\u0000pt', 'K'.repeat(65), 'Nothing']) {
      for (const [path, form] of [
        ['/settings/categories/update', { category, name: 'Kept', rule: 'changed', reply_mode: 'draft' }],
        ['/settings/categories/delete', { category }],
        ['/settings/prompts', { category, body: 'x' }],
        ['/settings/prompts/reset', { category }],
      ] as const) {
        const html = await follow(await post(path, form));
        expect(flashOf(html)?.[0], `${path} ${category.length}`).toBe('error');
      }
    }
    expect(await categories()).toEqual(before);
  });

  it('a form body that cannot be read is 400, not a failure', async () => {
    const res = await send('/settings/categories', {
      method: 'POST',
      cookie: session.cookie,
      csrf: session.csrf,
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nunterminated',
    });
    expect(res.status).toBeLessThan(500);
    expect(res.status).toBeGreaterThanOrEqual(400);
  });
});

describe('prompts', () => {
  it('saves and resets a general prompt and a category reply prompt', async () => {
    await follow(await post('/settings/prompts', { prompt: 'summarise', body: '  Summarise in one line.  ' }));
    expect(await prompt('summarise')).toMatchObject({ body: 'Summarise in one line.', custom: true });
    const html = await follow(await post('/settings/prompts/reset', { prompt: 'summarise' }));
    expect(flashOf(html)?.[0]).toBe('notice');
    expect((await prompt('summarise')).custom).toBe(false);

    await follow(await post('/settings/categories', { name: 'Owners', rule: 'owner', reply_mode: 'manual' }));
    await follow(await post('/settings/prompts', { category: 'Owners', body: 'Thank the owner.' }));
    expect(await prompt('category/Owners')).toMatchObject({ body: 'Thank the owner.', custom: true });
    await follow(await post('/settings/prompts/reset', { category: 'Owners' }));
    expect((await prompt('category/Owners')).body).not.toBe('Thank the owner.');
  });

  it('refuses an empty, NUL or over-long prompt beside the field, and a prompt that does not exist', async () => {
    const empty = await post('/settings/prompts', { prompt: 'reply', body: '   ' });
    expect(empty.status).toBe(400);
    const html = await empty.text();
    expect(html).toMatch(/<p class="field-error" id="prompt-\d+-error">/);
    const nul = await post('/settings/prompts', { prompt: 'reply', body: 'Hello\u0000' });
    expect(nul.status).toBe(400);
    const long = await post('/settings/prompts', { prompt: 'reply', body: 'y'.repeat(20_001) });
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('y'.repeat(20_001));
    expect((await prompt('reply')).custom).toBe(false);
    const unknown = await follow(await post('/settings/prompts', { prompt: 'nonsense', body: 'x' }));
    expect(flashOf(unknown)?.[0]).toBe('error');
    const noCategory = await follow(await post('/settings/prompts', { category: 'Nobody', body: 'x' }));
    expect(flashOf(noCategory)?.[0]).toBe('error');
    expect((await getJson(`/api/admin/llm-prompts/category/Nobody`)).status).toBe(404);
  });
});

describe('re-categorise recent mail', () => {
  it('queues the job of stored e-mails and the recent Inbox messages not yet summarised; they are categorised by the rules', async () => {
    await follow(await post('/settings/categories', { name: 'Stewards', rule: 'stewards report inquiry race', reply_mode: 'manual' }));
    const inbox = (await getJson<{ items: { id: string; subject: string }[] }>('/api/emails/inbox?top=50')).body.items;
    const stewards = inbox.filter((m) => /stewards/i.test(m.subject));
    expect(stewards.length).toBeGreaterThan(0);
    const html = await follow(await post('/settings/recategorise', {}));
    expect(flashOf(html)?.[1]).toMatch(/\d+ recent Inbox messages/);
    const [job] = (await jobsOf(session.userId)).sort((a, b) => b.createdAt - a.createdAt);
    await expect
      .poll(async () => (await getJson<Job>(`/api/admin/jobs/${job!.id}`)).body.status, { timeout: 20_000, interval: 300 })
      .toBe('done');
    await expect
      .poll(async () => (await getJson<{ total: number }>('/api/docdb/email_summaries?page_size=1')).body.total, {
        timeout: 30_000,
        interval: 500,
      })
      .toBe(inbox.length);
    const id = stewards[0]!.id;
    expect((await getJson<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(id)}`)).body.category).toBe('Stewards');
    // again: every recent message has a summary now, so only the job runs
    const again = await follow(await post('/settings/recategorise', {}));
    expect(flashOf(again)?.[1]).not.toMatch(/recent Inbox/);
  }, 60_000);

  it('without a mailbox, only the stored e-mails are sorted again', async () => {
    const lone = await directSession(`lone-${newUserId()}@example.com`);
    const html = await follow(await post('/settings/recategorise', {}, lone), lone);
    expect(flashOf(html)?.[1]).toContain('Connect your mailbox');
    expect((await jobsOf(lone.userId)).length).toBe(1);
  });
});

describe('users', () => {
  it('adds an account (validated) and removes it: its assistant access and running jobs end, its session stays', async () => {
    const clerk = await directSession(`clerk-${newUserId()}@elsewhere.test`);
    expect((await getJson('/api/categories', clerk)).status).toBe(403);
    const bad = await post('/settings/users', { email: 'not an address', name: 'Bad' });
    expect(bad.status).toBe(400);
    const badHtml = await bad.text();
    expect(fieldError(badHtml, 'user-email')).toBeTruthy();
    expect(badHtml).toContain('value="not an address"');
    expect((await post('/settings/users', { email: 'x@y.test', name: 'n\u0000' })).status).toBe(400);
    expect((await post('/settings/users', { email: `${'a'.repeat(320)}@y.test`, name: '' })).status).toBe(400);

    const added = await follow(await post('/settings/users', { email: clerk.email.toUpperCase(), name: 'Clerk' }));
    expect(flashOf(added)?.[1]).toContain(clerk.email);
    expect(added).toContain(`data-user="${clerk.email}"`);
    expect((await getJson('/api/categories', clerk)).status).toBe(200);
    const jobId = await createRecategoriseJob(db, clerk.userId);

    const removed = await follow(await post('/settings/users/remove', { email: clerk.email }));
    expect(flashOf(removed)?.[1]).toContain('1 running re-categorisation cancelled');
    expect(removed).not.toContain(`data-user="${clerk.email}"`);
    expect((await getJson('/api/categories', clerk)).status).toBe(403);
    const [job] = await db.select().from(schema.aiJobs).where(eq(schema.aiJobs.id, jobId)).all();
    expect(job!.status).toBe('cancelled');
    // signing in is unrelated to the list: the mail client still opens
    expect((await send('/outlook', { cookie: clerk.cookie })).status).toBe(200);
    expect((await post('/settings/users/remove', { email: clerk.email })).status).toBe(404);
  });

  it('refuses removing yourself and removing an administrator, with the reason; nothing changes', async () => {
    // An admin who also listed their own address.
    await follow(await post('/settings/users', { email: session.email }));
    const self = await post('/settings/users/remove', { email: session.email });
    expect(self.status).toBe(409);
    expect(await self.text()).toContain('You cannot remove yourself');
    expect(
      (await getJson<{ items: { email: string; admin: boolean }[] }>('/api/admin/users')).body.items
        .filter((u) => !u.admin)
        .map((u) => u.email),
    ).toContain(session.email);

    const otherAdmin = `boss-${newUserId()}@example.com`;
    await follow(await post('/settings/users', { email: otherAdmin }));
    const admin = await post('/settings/users/remove', { email: otherAdmin });
    expect(admin.status).toBe(409);
    expect(await admin.text()).toMatch(/administrator.*MAIL_ASSISTANT_ADMINS/);
    expect((await getJson<{ items: { email: string }[] }>('/api/admin/users')).body.items.map((u) => u.email)).toContain(otherAdmin);
  });

  it('only the assistant’s admins manage users', async () => {
    const listed = await directSession(`helper-${newUserId()}@elsewhere.test`);
    await follow(await post('/settings/users', { email: listed.email }));
    const victim = `victim-${newUserId()}@elsewhere.test`;
    await follow(await post('/settings/users', { email: victim }));
    expect((await post('/settings/users', { email: `friend-${newUserId()}@elsewhere.test` }, listed)).status).toBe(403);
    expect((await post('/settings/users/remove', { email: victim }, listed)).status).toBe(403);
    expect((await getJson<{ items: { email: string }[] }>('/api/admin/users')).body.items.map((u) => u.email)).toContain(victim);
  });
});

describe('anti-forgery and guards on every form', () => {
  const forms: [string, Record<string, string>][] = [
    ['/settings/categories', { name: 'Forged', rule: 'forged', reply_mode: 'manual' }],
    ['/settings/categories/update', { category: 'Target', name: 'Forged', rule: 'forged', reply_mode: 'draft' }],
    ['/settings/categories/delete', { category: 'Target' }],
    ['/settings/prompts', { prompt: 'classify', body: 'forged' }],
    ['/settings/prompts', { category: 'Target', body: 'forged' }],
    ['/settings/prompts/reset', { prompt: 'extract' }],
    ['/settings/recategorise', {}],
    ['/settings/users', { email: 'forged@elsewhere.test' }],
    ['/settings/users/remove', { email: 'kept@elsewhere.test' }],
  ];

  /** Everything the forms above could change, read from D1. */
  async function snapshot(s: TestSession) {
    return {
      categories: await db.select().from(schema.aiCategories).where(eq(schema.aiCategories.userId, s.userId)).all(),
      prompts: await db.select().from(schema.aiPrompts).where(eq(schema.aiPrompts.userId, s.userId)).all(),
      users: await db.select().from(schema.aiUsers).orderBy(schema.aiUsers.email).all(),
      jobs: await jobsOf(s.userId),
    };
  }

  it('a post without the token, with another session’s token or from another origin is 403 and writes nothing', async () => {
    const mine = await directSession(`forms-${newUserId()}@example.com`);
    const other = await directSession(`forms-other-${newUserId()}@example.com`);
    await follow(await post('/settings/categories', { name: 'Target', rule: 'target', reply_mode: 'manual' }, mine), mine);
    await follow(await post('/settings/prompts', { prompt: 'extract', body: 'Mine.' }, mine), mine);
    await follow(await post('/settings/users', { email: 'kept@elsewhere.test' }, mine), mine);
    const before = await snapshot(mine);
    for (const [path, form] of forms) {
      for (const attempt of [{ csrf: null }, { csrf: other.csrf }, { headers: { origin: 'https://evil.example' } }]) {
        const res = await post(path, form, mine, attempt);
        expect(res.status, `${path} ${JSON.stringify(attempt)}`).toBe(403);
      }
    }
    expect(await snapshot(mine)).toEqual(before);
  });

  it('an account not allowed the assistant is refused every form; without a session each goes to the login form', async () => {
    const outsider = await directSession(`forms-out-${newUserId()}@elsewhere.test`);
    const mine = await directSession(`forms-guard-${newUserId()}@example.com`);
    await follow(await post('/settings/categories', { name: 'Target', rule: 'target', reply_mode: 'manual' }, mine), mine);
    const before = await snapshot(outsider);
    for (const [path, form] of forms) {
      const res = await post(path, form, outsider);
      expect(res.status, path).toBe(403);
      const anonymous = await send(path, { method: 'POST', form });
      expect(anonymous.status, path).toBe(302);
      expect(anonymous.headers.get('location')).toMatch(/^\/login\?next=/);
    }
    expect(await snapshot(outsider)).toEqual(before);
  });
});
