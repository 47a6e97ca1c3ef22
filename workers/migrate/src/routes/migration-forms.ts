import { z } from 'zod';
import { HttpError } from '#shared/http-error.ts';
import { connectionOf, engineEnv } from '../configurations.ts';
import type { MigrateContext } from '../context.ts';
import * as engine from '../engine/index.ts';
import { FilterError } from '../engine/types.ts';
import { formBody, identifier, indexedList, parsed, text } from '../input.ts';
import { wizardSession, type WizardSession } from '../wizard-sessions.ts';

// What the wizard's steps share: their addresses, the session a request names, the filters a form posts.

export const MAX_TABLES = 200;
export const progressUrl = (id: string) => `/Migration/Progress?sessionId=${id}`;
export const stepUrl = (action: string, id: string) => `/Migration/${action}?sessionId=${id}`;

export const sessionFromQuery = (c: MigrateContext) => wizardSession(c, c.req.query('sessionId'));
export const sessionFromForm = async (c: MigrateContext) => wizardSession(c, (await formBody(c)).sessionId);

/** Filters posted as `filters[i].TableName` / `filters[i].Filter`, each checked on the source. */
export async function checkedFilters(
  c: MigrateContext,
  session: WizardSession,
): Promise<{ filters: Record<string, string>; errors: Record<string, string> }> {
  const items = parsed(
    z.array(z.object({ TableName: identifier, Filter: text(2000).default('') })).max(MAX_TABLES),
    indexedList(await formBody(c), 'filters'),
    'form.filters',
  );
  const known = new Set(session.plans.map((p) => p.sourceTable));
  const filters: Record<string, string> = { ...session.filters };
  const errors: Record<string, string> = {};
  const conn = await connectionOf(c, session.configId);
  for (const item of items) {
    if (!known.has(item.TableName)) throw new HttpError(400, 'invalid_request', `The table ${item.TableName} is not part of this session.`);
    const filter = item.Filter.trim();
    if (!filter) {
      delete filters[item.TableName];
      continue;
    }
    filters[item.TableName] = filter;
    try {
      await engine.testFilter(engineEnv(c), conn, item.TableName, filter);
    } catch (err) {
      if (!(err instanceof FilterError)) throw err;
      errors[item.TableName] = err.message;
    }
  }
  return { filters, errors };
}
