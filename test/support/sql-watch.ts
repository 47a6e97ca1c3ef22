import { vi } from 'vitest';

/** A statement that changes the schema or the session (DDL, SET and the like): none may come from a request. */
export const SCHEMA_STATEMENT =
  /^\s*(create|alter|drop|truncate|comment|grant|revoke|set|reset|discard|vacuum|analyze|reindex|cluster|refresh|lock|load|security)\b|\binto\s+(temp|temporary|unlogged)\b/i;

type SqlBody = { query?: string; queries?: { query: string }[] };

/**
 * Watches, from inside the isolate, what a Worker sends to PostgreSQL over the driver's HTTP path
 * (`POST …/sql`): returns the statements as they are sent, and lets `edit` change an answer before
 * the Worker reads it. Undo with `vi.restoreAllMocks()`.
 */
export function watchSql<Answer extends Record<string, unknown>>(edit?: (answer: Answer) => void): string[] {
  const statements: string[] = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (new URL(request.url).pathname !== '/sql') return realFetch(request);
    const body = (await request.clone().json()) as SqlBody;
    for (const { query } of body.queries ?? [{ query: body.query ?? '' }]) statements.push(query);
    const response = await realFetch(request);
    if (!edit || !response.ok) return response;
    const answer = (await response.json()) as Answer;
    edit(answer);
    return Response.json(answer, { status: response.status });
  });
  return statements;
}
