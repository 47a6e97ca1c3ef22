import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, haveChromium } from '../support/browser';
import { type MailClientRig, startMailClientRig } from './mail-client-support';

const OWNER = {
  email: 'racing-office@example.com',
  password: 'browser-mail-password',
  totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  role: 'admin' as const,
};
const CLERK = {
  email: 'racing-clerk@example.com',
  password: 'browser-clerk-password',
  totpSecret: 'KRSXG5CTMVRXEZLUKN2XAZLSONSWG4TF',
  role: 'user' as const,
};
// Signs in under the service's path prefix (/mail) on the same origin.
const DESK = {
  email: 'racing-desk@example.com',
  password: 'browser-desk-password',
  totpSecret: 'MJZG653TMVZC2ZDFONVS25DPORYC22ZB',
  role: 'user' as const,
};
type Account = typeof OWNER | typeof CLERK | typeof DESK;
// Each TOTP step is good once per account: the owner's second sign-in takes the next step.

/**
 * The mail assistant in real workerd, signing in through the real authentication Worker (service
 * binding) and connected to the Graph stand-in over HTTP — the stand-in calls its webhook itself.
 */
describe.skipIf(!haveChromium)('mail assistant in Chromium', () => {
  let rig: MailClientRig;
  let mail: RunningWorker;
  let browser: Browser;
  let control: string;
  let deskControl: string;

  beforeAll(async () => {
    rig = await startMailClientRig('mail', [OWNER, CLERK, DESK]);
    ({ mail, browser, control } = rig);
    deskControl = rig.controls[DESK.email]!;
  }, 120_000);

  afterAll(() => rig?.close());

  /** Fills and submits the sign-in form; what follows is the test's. */
  const signIn = (page: Page, account: Account) => rig.logIn(page, { account });

  it('signs in, connects the mailbox, reads a thread, replies, composes with CC and moves a message', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });

    await signIn(page, OWNER);
    // No mailbox yet: the client sends the browser to the connect page.
    await page.waitForURL(`${mail.url}/connect`);
    await page.getByRole('button', { name: 'Connect mailbox' }).click();
    await page.waitForURL(/\/connect\?connected=1$/);
    await page.getByText('The mailbox is connected.').waitFor();
    expect(await page.locator('main').innerText()).toContain(OWNER.email);
    // The stand-in validated the webhook over HTTP before answering the subscription.
    const subscriptions = (await (await fetch(`${control}/subscriptions`)).json()) as { value: { notificationUrl: string }[] };
    // the Inbox and Sent Items subscriptions
    expect(subscriptions.value.map((s) => s.notificationUrl)).toEqual([`${mail.url}/graph/webhook`, `${mail.url}/graph/webhook`]);

    // Before the connection the client's first call was refused (401): only errors from here on count.
    errors.length = 0;
    await page.goto(`${mail.url}/outlook`);
    const folders = page.locator('[data-folders] a');
    await folders.first().waitFor();
    expect(await page.locator('[data-folders] [data-folder="inbox"] .count').innerText()).toMatch(/^\d+$/);
    const messages = page.locator('[data-messages] li[role="option"]');
    await messages.first().waitFor();
    expect(await messages.count()).toBe(25);

    // Read a thread: a message that is a reply ("RE:") has its conversation across folders.
    const threaded = messages.filter({ hasText: /RE:/i }).first();
    const subject = (await threaded.locator('.subject').innerText()).replace(/^📎 /, '');
    await threaded.click();
    await page.locator('[data-reader] article.message').first().waitFor();
    expect(await page.locator('[data-reader] h2.subject').innerText()).toBe(subject);
    expect(await page.locator('[data-reader] article.message').count()).toBeGreaterThan(1);

    // Reply from the reading pane.
    await page.getByRole('button', { name: 'Reply', exact: true }).click();
    await page.locator('#reply-body').fill('Thanks — the float is booked for 6am.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByText('Reply sent.').waitFor();
    await expect
      .poll(() => page.locator('[data-reader] article.message').filter({ hasText: 'the float is booked for 6am' }).count(), {
        timeout: 10_000,
      })
      .toBe(1);

    // Compose with CC, using the keyboard shortcut; the people typeahead fills suggestions.
    await page.locator('[data-reader]').press('Escape');
    await page.keyboard.press('c');
    const dialog = page.locator('dialog[data-compose]');
    await dialog.waitFor();
    await page.locator('#compose-to').pressSequentially('tr', { delay: 30 });
    await expect.poll(() => page.locator('#people option').count(), { timeout: 5_000 }).toBeGreaterThan(0);
    await page.locator('#compose-to').fill('trainer@example.com');
    await page.locator('#compose-cc').fill('owner@example.com, stable@example.com');
    await page.locator('#compose-subject').fill('Barrier trial times');
    await page.locator('#compose-body').fill('Heat 3 at 7:40.');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Message sent.').waitFor();
    const sent = await page.evaluate(async () => {
      const list = (await (await fetch('/api/emails/sentitems?top=5')).json()) as { items: { id: string; subject: string }[] };
      const item = list.items.find((m) => m.subject === 'Barrier trial times')!;
      return (await (await fetch(`/api/email/${item.id}`)).json()) as { cc: { address: string }[] };
    });
    expect(sent.cc.map((a) => a.address)).toEqual(['owner@example.com', 'stable@example.com']);

    // Move the first message of the inbox to Archive.
    await page.goto(`${mail.url}/outlook#folder=inbox`);
    await messages.first().waitFor();
    const first = messages.first();
    const movedId = await first.getAttribute('data-id');
    await first.click();
    await page.locator('[data-move-target]').selectOption('archive');
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    await page.getByText('Moved.').waitFor();
    expect(await page.locator(`[data-messages] li[data-id="${movedId}"]`).count()).toBe(0);
    const moved = await page.evaluate(
      async (id) => ((await (await fetch(`/api/email/${id}`)).json()) as { folder: string }).folder,
      movedId,
    );
    expect(moved).toBe('archive');

    // New mail reaches the webhook over HTTP: answered 202 within Graph's time limit.
    await fetch(`${control}/deliver`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subject: 'Acceptances for Saturday' }),
    });
    const deliveries = (await (await fetch(`${control}/deliveries?count=2&wait=10000`)).json()) as {
      value: { kind: string; status: number | null; durationMs: number }[];
    };
    const notification = deliveries.value.find((d) => d.kind === 'notification');
    expect(notification).toMatchObject({ status: 202 });
    expect(notification!.durationMs).toBeLessThan(3_000);

    expect(errors).toEqual([]);
    await page.close();
  });

  it('works under the path prefix /mail: sign-in, connect, the client’s calls and links, back to sign-in with a `next` the server routes', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));

    await page.goto(`${mail.url}/mail/outlook`);
    await page.waitForURL(`${mail.url}/mail/login?next=%2Foutlook`);
    await page.getByLabel('E-mail').fill(DESK.email);
    await page.getByLabel('Password').fill(DESK.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    const field = page.getByLabel('Code');
    await field.waitFor();
    await field.fill(rig.code(DESK));
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The client's first call finds no mailbox and sends the browser to the connect page, under the prefix.
    await page.waitForURL(`${mail.url}/mail/connect`);
    expect((await context.cookies()).find((c) => c.name === 'mail_session')?.path).toBe('/mail');
    await page.getByRole('button', { name: 'Connect mailbox' }).click();
    await page.waitForURL(`${mail.url}/mail/connect?connected=1`);
    await page.getByText('The mailbox is connected.').waitFor();
    const subscriptions = (await (await fetch(`${deskControl}/subscriptions`)).json()) as { value: { notificationUrl: string }[] };
    expect(subscriptions.value.map((s) => s.notificationUrl)).toEqual([`${mail.url}/mail/graph/webhook`, `${mail.url}/mail/graph/webhook`]);

    await page.goto(`${mail.url}/mail/outlook`);
    await page.locator('[data-folders] a').first().waitFor();
    const messages = page.locator('[data-messages] li[role="option"]');
    await messages.first().waitFor();
    await messages.first().click();
    await page.locator('[data-reader] article.message').first().waitFor();
    const download = await page.getByRole('link', { name: 'Download .eml' }).getAttribute('href');
    expect(download).toMatch(/^\/mail\/api\/email-download\//);
    const eml = await page.evaluate(async (href) => (await fetch(href)).status, download!);
    expect(eml).toBe(200);

    await page.getByRole('button', { name: 'Template reply' }).click();
    const trace = await page.locator('[data-trace-link]').getAttribute('href');
    expect(trace).toMatch(/^\/mail\/trace\/tr_/);
    await page.locator('[data-trace-link]').click();
    await page.waitForURL(`${mail.url}${trace}`);
    await page.locator('[data-shell="trace"]').waitFor();

    // The session gone: the client's next call sends the browser to sign in, to come back to the client.
    await page.goto(`${mail.url}/mail/outlook#folder=inbox`);
    await messages.first().waitFor();
    await context.clearCookies();
    await page.locator('#q').fill('race');
    await page.locator('#q').press('Enter');
    await page.waitForURL(/\/mail\/login\?/);
    const login = new URL(page.url());
    expect(login.pathname).toBe('/mail/login');
    expect(login.searchParams.get('next')).toBe('/outlook#folder=inbox');
    expect(await page.locator('input[name="next"]').inputValue()).toBe('/outlook#folder=inbox');

    expect(errors).toEqual([]);
    await context.close();
  });

  it('is usable on a phone: the list and the reading pane take the screen in turn', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await signIn(page, CLERK);
    // no mailbox yet: /outlook sends the clerk on to /connect (its first request answers mailbox_not_connected)
    await page.waitForURL(/\/connect$/);
    // The clerk has a mailbox of their own (the owner's is not theirs): connected here.
    await page.goto(`${mail.url}/connect`);
    await page.getByRole('button', { name: 'Connect mailbox' }).tap();
    await page.waitForURL(/connected=1$/);
    expect(await page.locator('section.panel').textContent()).toContain(CLERK.email);
    await page.goto(`${mail.url}/outlook`);
    const messages = page.locator('[data-messages] li[role="option"]');
    await messages.first().waitFor();
    expect(await page.locator('[data-reader]').isVisible()).toBe(false);
    await messages.first().tap();
    await page.locator('[data-reader] article.message').first().waitFor();
    expect(await page.locator('[data-messages]').isVisible()).toBe(false);
    await page.getByRole('button', { name: '← Back' }).tap();
    expect(await page.locator('[data-messages]').isVisible()).toBe(true);
    await context.close();
  });

  it('generates an AI draft from /outlook, edits and sends it, then sees the dashboard and the draft’s trace', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await rig.signIn(page);
    await fetch(`${control}/deliver`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        subject: 'Nomination for race 4 at Flemington',
        body: 'Please nominate Silver Arrow for race 4 on Saturday.',
        from: { name: 'Jane Trainer', address: 'jane@stables.test' },
      }),
    });
    // A category whose mail gets reply drafts.
    await page.goto(`${mail.url}/outlook`);
    const created = await page.evaluate(async () => {
      const csrf = document.querySelector('meta[name="csrf-token"]')!.getAttribute('content')!;
      const res = await fetch('/api/admin/categories', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ name: 'Nominations', rule: 'nomination race horse entries', reply_mode: 'draft' }),
      });
      return res.status;
    });
    expect([201, 409]).toContain(created);
    const messages = page.locator('[data-messages] li[role="option"]');
    await messages.first().waitFor();
    await messages.filter({ hasText: 'Nomination for race 4 at Flemington' }).first().click();
    await page.locator('[data-reader] article.message').first().waitFor();

    await page.getByRole('button', { name: 'Template reply' }).click();
    const draft = page.locator('#ai-draft-body');
    await draft.waitFor();
    expect(await draft.inputValue()).toContain('Kind regards');
    const draftId = await page.locator('[data-ai-draft-form]').getAttribute('data-draft-id');
    await draft.fill('Thanks — the nomination is in. Kind regards, the office');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved.').waitFor();
    const saved = await page.evaluate(
      async (id) => (await (await fetch(`/api/email/${id}`)).json()) as { body: { content: string }; isDraft: boolean },
      draftId,
    );
    expect(saved.isDraft).toBe(true);
    expect(saved.body.content).toContain('the nomination is in');
    const traceHref = await page.locator('[data-trace-link]').getAttribute('href');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Draft sent.').waitFor();
    const sent = await page.evaluate(async () =>
      ((await (await fetch('/api/emails/sentitems?top=5')).json()) as { items: { subject: string }[] }).items.map((m) => m.subject),
    );
    expect(sent).toContain('RE: Nomination for race 4 at Flemington');

    await page.goto(`${mail.url}/dashboard`);
    expect(await page.locator('[data-figure="drafts"]').innerText()).toMatch(/^[1-9]\d* \/ [1-9]/);
    expect(await page.locator('table.by-category').innerText()).toContain('Nominations');
    await page.goto(`${mail.url}${traceHref}`);
    const steps = page.locator('table.trace-steps tbody tr');
    await steps.first().waitFor();
    const text = await page.locator('table.trace-steps').innerText();
    // The message was summarised and categorised on arrival (the webhook); the draft's own steps:
    // the message read, the category's reply prompt, the draft made at the provider.
    expect(text).toContain('category:Nominations');
    expect(text).toContain('createReply');
    expect(errors).toEqual([]);
    await page.close();
  });
});
