import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** A phone's screen: the width every page must fit. */
export const PHONE = { width: 390, height: 844 } as const;

/** A browser context the size of a phone (touch, mobile viewport). */
export function phoneContext(browser: Browser, options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
  return browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, ...options });
}

/** How many CSS pixels the page is wider than its viewport (0 when it fits). */
export async function overflowWidth(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body?.scrollWidth ?? 0) - window.innerWidth);
}

/** The elements that stick out past the right edge of the viewport, for a useful failure message. */
export async function overflowingElements(page: Page, limit = 5): Promise<string[]> {
  return page.evaluate((max) => {
    const out: string[] = [];
    const width = window.innerWidth;
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const box = el.getBoundingClientRect();
      if (box.right > width + 1 && box.width > 0) {
        // Inside a box that scrolls on its own, overflow is the point of the box.
        let scroller = el.parentElement;
        let contained = false;
        while (scroller && scroller !== document.body) {
          const style = getComputedStyle(scroller);
          if (/(auto|scroll|hidden)/.test(style.overflowX) && scroller.getBoundingClientRect().right <= width + 1) {
            contained = true;
            break;
          }
          scroller = scroller.parentElement;
        }
        if (contained) continue;
        out.push(
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} (right edge ${Math.round(box.right)} px)`,
        );
        if (out.length >= max) break;
      }
    }
    return out;
  }, limit);
}

let axeSource: string | undefined;

/** axe-core's browser build, read once from node_modules. */
function axeScript(): string {
  if (axeSource === undefined) {
    const require = createRequire(import.meta.url);
    axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  }
  return axeSource;
}

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe-core on the page as it stands and returns its critical and serious findings. */
export async function seriousAxeFindings(page: Page): Promise<AxeFinding[]> {
  const present = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!present) await page.addScriptTag({ content: axeScript() });
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document,
            opts: unknown,
          ) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.slice(0, 5).map((n) => String(n.target)) }));
  });
}

/**
 * The two checks every page must pass: it fits a 390 px screen and axe-core finds nothing critical
 * or serious. Returns the problems in words (empty when the page passes), so a test can say which
 * page failed and why: `expect(await pageProblems(page)).toEqual([])`.
 */
export async function pageProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  const overflow = await overflowWidth(page);
  if (overflow > 0) problems.push(`${overflow} px wider than the screen: ${(await overflowingElements(page)).join(', ')}`);
  for (const finding of await seriousAxeFindings(page))
    problems.push(`axe ${finding.impact} ${finding.id}: ${finding.help} (${finding.targets.join('; ')})`);
  return problems;
}
