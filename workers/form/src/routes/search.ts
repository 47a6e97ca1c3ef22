import { Hono } from 'hono';
import { hasNul, NUL_MESSAGE } from '#shared/text.ts';
import type { FormEnv } from '../context.ts';
import { signedIn } from '../guards.ts';
import { cachedSearch } from '../data.ts';
import { MAX_QUERY_LENGTH } from '../params.ts';
import { badRequestPage } from '../views/render.tsx';
import { searchPage } from '../views/search.tsx';
import { MIN_SEARCH_CHARS } from './api.ts';

/** The search box's page when script is off (with script, results appear as you type). */
export const search = new Hono<FormEnv>();

search.get('/', signedIn, async (c) => {
  const query = (c.req.query('q') ?? '').trim();
  if (query.length > MAX_QUERY_LENGTH) return badRequestPage(c, [`the search must be at most ${MAX_QUERY_LENGTH} characters`]);
  if (hasNul(query)) return badRequestPage(c, [`the search ${NUL_MESSAGE}`]);
  const tooShort = [...query].length < MIN_SEARCH_CHARS;
  const horses = tooShort ? [] : await cachedSearch(c, query);
  return c.html(searchPage({ query, horses, tooShort }));
});
