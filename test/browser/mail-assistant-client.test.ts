import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium } from '../support/browser';
import { pageProblems, phoneContext } from '../support/page-checks';
import { type MailClientRig, startMailClientRig } from './mail-client-support';

const ACCOUNT = {
  email: 'assistant-client@example.com',
  password: 'browser-assistant-client-password',
  totpSecret: 'KRSXG5CTMVRXEZLUKN2XAZLSONSWG4TF',
};
const SUBJECT = 'Stewards inquiry into race 4';

/** A JSON call of the page's own session (anti-forgery token from the page). */
const call = (page: Page, path: string, body?: unknown) =>
  page.evaluate(
    async ([p, b]) => {
      const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
      const res = await fetch(
        p as string,
        b === undefined
          ? {}
          : { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify(b) },
      );
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    [path, body] as const,
  );

/**
 * The assistant where mail is read, on a phone's screen (offline model): the category chip and
 * reply state in the list, the filters, a message's summary and the conversation's rolling
 * summary, and the reply draft labelled a template reply, never AI.
 */
describe.skipIf(!haveChromium)('the assistant in the mail client', () => {
  let rig: MailClientRig;
  let messageId: string;

  beforeAll(async () => {
    rig = await startMailClientRig('mail-assistant-client', ACCOUNT);
    messageId = await rig.deliver({
      subject: SUBJECT,
      from: { name: 'Chief Steward', address: 'stewards@racing.example.test' },
      html: '<p>The stewards report an inquiry into the protest after race 4.</p><p>Please confirm the jockey can attend at 10am.</p>',
    });
  }, 120_000);

  afterAll(async () => {
    await rig?.close();
  });

  it('shows chips, filters, summaries and the draft origin, fitting a phone with no serious axe finding', async () => {
    // The page policy allows no inline script: axe-core is injected past it.
    const context = await phoneContext(rig.browser, { bypassCSP: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await rig.signIn(page);
    await page.goto(`${rig.mail.url}/outlook`);
    const item = page.locator('[data-messages] li[role="option"]').filter({ hasText: SUBJECT });
    await item.waitFor();
    // Nothing summarised yet: no chips, but the filters are there for an account of the assistant.
    expect(await item.locator('.chip').count()).toBe(0);
    await page.locator('[data-filters] [data-filter="needs_reply"]').waitFor();
    expect(await pageProblems(page)).toEqual([]);

    const made = await call(page, '/api/admin/categories', {
      name: 'Stewards',
      rule: 'stewards inquiry protest report',
      reply_mode: 'manual',
    });
    expect(made.status).toBe(201);

    // The reading pane: "Summarise" stores the message's summary, shown with its category.
    await item.click();
    await page.locator('[data-reader] article.message').first().waitFor();
    await page.getByRole('button', { name: 'Summarise', exact: true }).click();
    const summary = page.locator('[data-message-summary]');
    await summary.locator('p').first().waitFor();
    expect(await summary.innerText()).toContain('stewards report an inquiry');
    expect(await summary.locator('span.chip.category[data-category="Stewards"]').count()).toBe(1);
    // the offline model's work is named for what it is: a keyword category and first sentences
    expect(await summary.locator('span.chip.category').getAttribute('title')).toBe('keyword category (no language model)');
    expect(await summary.locator('[data-template-note]').innerText()).toBe(
      'First sentences and a keyword category (template, no language model)',
    );
    expect(await page.locator('[data-filters] [data-template-note]').innerText()).toBe('Categories: keyword matches');

    // The conversation's rolling summary above the thread: made on request, kept for the next visit.
    const thread = page.locator('[data-thread-summary]');
    expect(await thread.innerText()).toContain('No summary of this conversation yet');
    await thread.getByRole('button', { name: 'Summarise conversation' }).click();
    await thread.locator('[data-thread-summary-text]').waitFor();
    expect(await thread.locator('[data-thread-summary-text]').innerText()).toContain('stewards');
    expect(await thread.locator('[data-template-note]').innerText()).toContain('(template, no language model)');
    expect(await page.locator('[data-reader]').innerText()).not.toMatch(/\bAI\b/);
    expect(await pageProblems(page)).toEqual([]);

    // The reply draft: a template with the offline model, and labelled so.
    await page.getByRole('button', { name: 'Template reply' }).click();
    const form = page.locator('[data-ai-draft-form]');
    await form.waitFor();
    expect(await form.getAttribute('data-draft-origin')).toBe('template reply');
    expect(await form.locator('.chip.origin').innerText()).toBe('template reply');
    expect(await form.locator('h3, .draft-origin').allInnerTexts()).not.toEqual(expect.arrayContaining([expect.stringMatching(/\bAI\b/)]));
    expect(await pageProblems(page)).toEqual([]);

    // Back in the list: the category chip (the markup other pages rely on) and the reply state.
    await page.getByRole('button', { name: '← Back' }).click();
    await page.reload();
    await item.waitFor();
    expect(await item.locator('span.chip.category[data-category="Stewards"]').innerText()).toBe('Stewards');
    expect(await item.locator('[data-state="needs-reply"]').count()).toBe(1);

    // Awaiting reply: a message the owner sent, summarised, with nothing summarised after it in its conversation.
    const sent = (await call(page, '/api/emails/sentitems?top=5')).body as { items: { id: string }[] };
    const lone = sent.items[0]!;
    expect((await call(page, '/api/save-summary-direct', { message_id: lone.id })).status).toBe(200);

    // The filters: "Needs reply" lists the stewards' message, "Awaiting reply" the sent one.
    await page.locator('[data-filters] [data-filter="needs_reply"]').click();
    await expect
      .poll(() => page.locator('[data-messages] li[role="option"]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id'))))
      .toEqual([messageId]);
    expect(await page.locator('[data-filters] [data-filter="needs_reply"]').getAttribute('aria-pressed')).toBe('true');
    expect(await pageProblems(page)).toEqual([]);
    await page.locator('[data-filters] [data-filter="awaiting_reply"]').click();
    await expect
      .poll(() => page.locator('[data-messages] li[role="option"]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id'))))
      .toEqual([lone.id]);
    expect(await page.locator('[data-messages] li[role="option"] [data-state="awaiting-reply"]').count()).toBe(1);
    await page.locator('[data-filters] [data-filter="all"]').click();
    await expect.poll(() => page.locator('[data-messages] li[role="option"]').count()).toBe(25);

    // The draft in Drafts says who wrote it.
    await page.goto(`${rig.mail.url}/outlook#folder=drafts`);
    const origin = page.locator('[data-messages] li[role="option"] [data-draft-origin="template reply"]');
    await expect.poll(() => origin.count(), { timeout: 10_000 }).toBe(1);
    expect(await pageProblems(page)).toEqual([]);

    // The thread summary was stored: the thread answer carries it on the next visit.
    const again = (await call(page, `/api/thread/${encodeURIComponent(messageId)}`)).body as {
      threadSummary: { summary: string } | null;
      assistant: boolean;
    };
    expect(again.assistant).toBe(true);
    expect(again.threadSummary?.summary).toContain('stewards');

    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
