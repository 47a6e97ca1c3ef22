import { describe, expect, it } from 'vitest';
import {
  CACHE_KINDS,
  type CacheKind,
  type CacheKindSettings,
  DataCache,
  type LoadedParts,
  type PartsRequest,
} from '../../workers/form/src/cache';

/** A cache over a real Cache API store, with a clock the test moves and writes it can wait for. */
async function harness(kinds: Record<CacheKind, CacheKindSettings> = CACHE_KINDS) {
  const store = await caches.open(`form-test-${crypto.randomUUID()}`);
  const clock = { now: Date.parse('2026-11-23T00:00:00Z') };
  const pending: Promise<unknown>[] = [];
  const make = (k = kinds) => new DataCache(store, { now: () => clock.now, defer: (work) => pending.push(work), kinds: k });
  const settle = async () => {
    await Promise.all(pending.splice(0));
  };
  let loads = 0;
  const loader = (value: unknown) => async () => {
    loads += 1;
    return value;
  };
  return { store, clock, make, settle, loader, loads: () => loads, writes: () => pending.length };
}

type Parts = { page: string; sales: string[] };

/** A runner-page-like entry of two parts whose loader records what it was asked for. */
function partsRequest(asked: string[][], answer: (missing: string[]) => LoadedParts<Parts>): PartsRequest<Parts> {
  return {
    kind: 'runner_page',
    parts: { horse: 7 },
    partKinds: { page: 'runner_page', sales: 'sales' },
    load: async (missing) => {
      asked.push(missing);
      return answer(missing);
    },
  };
}

const loadedAll =
  (page: string, sales: string[]) =>
  (missing: string[]): LoadedParts<Parts> => ({
    ...(missing.includes('page') ? { page: { value: page, store: true } } : {}),
    ...(missing.includes('sales') ? { sales: { value: sales, store: true } } : {}),
  });

describe('data cache (Workers Cache API)', () => {
  it('has the spec’s timeouts per kind of data', () => {
    expect(Object.fromEntries(Object.entries(CACHE_KINDS).map(([kind, s]) => [kind, s.ttlSeconds]))).toMatchObject({
      runner_page: 120,
      sales: 600,
      dates: 300,
      meetings: 300,
      races: 300,
      runners: 300,
      search: 180,
      guide: 120,
      date_strip: 300,
    });
  });

  it('loads once, then answers from the cache (a hit) with the same data', async () => {
    const h = await harness();
    const cache = h.make();
    const value = { dates: ['2026-11-23', '2026-11-22'] };
    expect(await cache.get('dates', {}, h.loader(value))).toEqual(value);
    await h.settle();
    expect(await cache.get('dates', {}, h.loader({ dates: ['changed'] }))).toEqual(value);
    expect(h.loads()).toBe(1);
    expect(cache.outcomes).toEqual(['dates=miss', 'dates=hit']);
  });

  it('keys by every part, in any order', async () => {
    const h = await harness();
    const cache = h.make();
    await cache.get('races', { date: '2026-11-23', meeting: 4 }, h.loader(['a']));
    await h.settle();
    expect(await cache.get('races', { meeting: 4, date: '2026-11-23' }, h.loader(['b']))).toEqual(['a']);
    expect(await cache.get('races', { date: '2026-11-23', meeting: 5 }, h.loader(['c']))).toEqual(['c']);
    expect(cache.key('races', { date: '2026-11-23', meeting: undefined })).toBe(cache.key('races', { date: '2026-11-23' }));
  });

  it('expires an entry after its kind’s time to live', async () => {
    const h = await harness();
    const cache = h.make();
    await cache.get('search', { q: 'bla' }, h.loader(['first']));
    await h.settle();
    h.clock.now += 179_000;
    expect(await cache.get('search', { q: 'bla' }, h.loader(['second']))).toEqual(['first']);
    h.clock.now += 1_000; // 180 s: the search timeout
    expect(await cache.get('search', { q: 'bla' }, h.loader(['second']))).toEqual(['second']);
    await h.settle();
    expect(await cache.get('search', { q: 'bla' }, h.loader(['third']))).toEqual(['second']);
    expect(h.loads()).toBe(2);
  });

  it('sales keep for 600 s where runner page data keeps for 120 s', async () => {
    const h = await harness();
    const cache = h.make();
    await cache.get('sales', { horse: 1 }, h.loader('sales v1'));
    await cache.get('runner_page', { horse: 1 }, h.loader('page v1'));
    await h.settle();
    h.clock.now += 121_000;
    expect(await cache.get('runner_page', { horse: 1 }, h.loader('page v2'))).toBe('page v2');
    expect(await cache.get('sales', { horse: 1 }, h.loader('sales v2'))).toBe('sales v1');
    h.clock.now += 480_000;
    expect(await cache.get('sales', { horse: 1 }, h.loader('sales v3'))).toBe('sales v3');
  });

  it('a version bump bypasses entries stored under the old version, for that kind only', async () => {
    const h = await harness();
    const v1 = h.make();
    await v1.get('runners', { race: 7 }, h.loader('old shape'));
    await v1.get('dates', {}, h.loader('dates'));
    await h.settle();
    const bumped = { ...CACHE_KINDS, runners: { ...CACHE_KINDS.runners, version: CACHE_KINDS.runners.version + 1 } };
    const v2 = h.make(bumped);
    expect(v2.key('runners', { race: 7 })).not.toBe(v1.key('runners', { race: 7 }));
    expect(await v2.get('runners', { race: 7 }, h.loader('new shape'))).toBe('new shape');
    expect(await v2.get('dates', {}, h.loader('dates again'))).toBe('dates');
    // The old version still reads its own entry: nothing was overwritten.
    expect(await v1.get('runners', { race: 7 }, h.loader('x'))).toBe('old shape');
  });

  it('never stores a failed load', async () => {
    const h = await harness();
    const cache = h.make();
    await expect(
      cache.get('sales', { horse: 2 }, async () => {
        throw new Error('relation does not exist');
      }),
    ).rejects.toThrow('relation');
    await h.settle();
    expect(await cache.get('sales', { horse: 2 }, h.loader(['ok']))).toEqual(['ok']);
  });

  it('getAll: hits and misses of one page together; a fallback answer is not cached', async () => {
    const h = await harness();
    const cache = h.make();
    await cache.get('runner_page', { horse: 3 }, h.loader('page'));
    await h.settle();
    const failing = async (): Promise<string[]> => {
      throw new Error('sales table unavailable');
    };
    const [page, sales] = await cache.getAll([
      { kind: 'runner_page', parts: { horse: 3 }, load: h.loader('page again') },
      { kind: 'sales', parts: { horse: 3 }, load: failing, onError: () => [] as string[] },
    ] as const);
    expect([page, sales]).toEqual(['page', []]);
    expect(cache.outcomes).toEqual(['runner_page=miss', 'runner_page=hit', 'sales=miss']);
    await h.settle();
    const [, salesLater] = await cache.getAll([
      { kind: 'runner_page', parts: { horse: 3 }, load: h.loader('x') },
      { kind: 'sales', parts: { horse: 3 }, load: h.loader(['a sale']) },
    ] as const);
    expect(salesLater).toEqual(['a sale']);
  });

  it('stores with a max-age of the kind’s time to live, so the edge drops it too', async () => {
    const h = await harness();
    const cache = h.make();
    await cache.get('guide', { date: '2026-11-23' }, h.loader([]));
    await h.settle();
    const stored = await h.store.match(cache.key('guide', { date: '2026-11-23' }));
    expect(stored?.headers.get('cache-control')).toBe('public, max-age=120');
    expect(stored?.headers.get('set-cookie')).toBeNull();
  });
});

describe('data cache: one entry of several parts (the runner page and its sales)', () => {
  it('a first view loads both parts in one call and stores them in one write; a repeat view reads them back', async () => {
    const h = await harness();
    const cache = h.make();
    const asked: string[][] = [];
    expect(await cache.getParts(partsRequest(asked, loadedAll('page 1', ['sale 1'])))).toEqual({ page: 'page 1', sales: ['sale 1'] });
    expect(asked).toEqual([['page', 'sales']]);
    expect(h.writes()).toBe(1);
    await h.settle();
    expect(await cache.getParts(partsRequest(asked, loadedAll('page 2', ['sale 2'])))).toEqual({ page: 'page 1', sales: ['sale 1'] });
    expect(asked).toHaveLength(1);
    expect(cache.outcomes).toEqual(['runner_page=miss', 'sales=miss', 'runner_page=hit', 'sales=hit']);
  });

  it('each part keeps its own kind’s time to live: the page data 120 s, the sales 600 s', async () => {
    const h = await harness();
    const cache = h.make();
    const asked: string[][] = [];
    await cache.getParts(partsRequest(asked, loadedAll('page 1', ['sale 1'])));
    await h.settle();
    h.clock.now += 120_000;
    expect(await cache.getParts(partsRequest(asked, loadedAll('page 2', ['sale 2'])))).toEqual({ page: 'page 2', sales: ['sale 1'] });
    expect(asked.at(-1)).toEqual(['page']);
    await h.settle();
    h.clock.now += 480_000; // 600 s after the sales were stored; the page 480 s after its reload
    expect(await cache.getParts(partsRequest(asked, loadedAll('page 3', ['sale 3'])))).toEqual({ page: 'page 3', sales: ['sale 3'] });
    expect(asked.at(-1)).toEqual(['page', 'sales']);
    await h.settle();
    const stored = await h.store.match(cache.key('runner_page', { horse: 7, v_page: 2, v_sales: 1 }));
    expect(stored?.headers.get('cache-control')).toBe('public, max-age=600');
  });

  it('a part answered as a fallback (store: false) is shown but not kept; the next view loads that part alone', async () => {
    const h = await harness();
    const cache = h.make();
    const asked: string[][] = [];
    const failedSales = (missing: string[]): LoadedParts<Parts> => ({
      ...(missing.includes('page') ? { page: { value: 'page 1', store: true } } : {}),
      ...(missing.includes('sales') ? { sales: { value: [], store: false } } : {}),
    });
    expect(await cache.getParts(partsRequest(asked, failedSales))).toEqual({ page: 'page 1', sales: [] });
    await h.settle();
    // Nothing new worth keeping (the page is a hit, the sales failed again): no write.
    expect(await cache.getParts(partsRequest(asked, failedSales))).toEqual({ page: 'page 1', sales: [] });
    expect(h.writes()).toBe(0);
    expect(await cache.getParts(partsRequest(asked, loadedAll('page 2', ['sale 1'])))).toEqual({ page: 'page 1', sales: ['sale 1'] });
    expect(asked).toEqual([['page', 'sales'], ['sales'], ['sales']]);
    expect(cache.outcomes.slice(-2)).toEqual(['runner_page=hit', 'sales=miss']);
  });

  it('a part’s version is part of the key: bumping the sales’ version misses the whole entry', async () => {
    const h = await harness();
    const asked: string[][] = [];
    await h.make().getParts(partsRequest(asked, loadedAll('page 1', ['sale 1'])));
    await h.settle();
    const bumped = h.make({ ...CACHE_KINDS, sales: { ...CACHE_KINDS.sales, version: CACHE_KINDS.sales.version + 1 } });
    expect(await bumped.getParts(partsRequest(asked, loadedAll('page 2', ['sale 2'])))).toEqual({ page: 'page 2', sales: ['sale 2'] });
  });

  it('a loader that leaves out a part it was asked for is an error, not an empty page', async () => {
    const h = await harness();
    await expect(h.make().getParts(partsRequest([], () => ({ page: { value: 'page', store: true } })))).rejects.toThrow(/part sales/);
  });
});
