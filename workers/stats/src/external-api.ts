import type { z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import type { StatsConfig } from './context.ts';
import { detailError } from './errors.ts';
import { jockeysWrapperSchema, meetingWrapperSchema, trainersWrapperSchema } from './schemas.ts';

// The external statistics API serves the same camelCase contract as this service:
// GET {EXTERNAL_API_BASE_URL}/trainerStats|jockeyStats|meetingStats?date=&courseId=, with the key
// as `Authorization: Bearer`. Whatever it answers is checked against the record schema before it
// reaches a caller; a failure, a timeout or a body off-contract is a 502 with a body.

const ENDPOINTS = {
  trainerStats: trainersWrapperSchema,
  jockeyStats: jockeysWrapperSchema,
  meetingStats: meetingWrapperSchema,
} as const;
export type ExternalEndpoint = keyof typeof ENDPOINTS;

export async function fetchExternalStats<E extends ExternalEndpoint>(
  config: StatsConfig,
  endpoint: E,
  date: string,
  courseId: number,
): Promise<z.infer<(typeof ENDPOINTS)[E]>> {
  const base = config.EXTERNAL_API_BASE_URL;
  if (!base || !config.EXTERNAL_API_KEY) throw detailError(500, 'The external statistics API is not configured');
  const url = new URL(`${base.replace(/\/+$/, '')}/${endpoint}`);
  url.searchParams.set('date', date);
  url.searchParams.set('courseId', String(courseId));
  const timeout = config.EXTERNAL_API_TIMEOUT_MS;
  let body: unknown;
  let status: number;
  try {
    const res = await fetch(url, {
      headers: { Authorization: `Bearer ${config.EXTERNAL_API_KEY}`, Accept: 'application/json' },
      signal: AbortSignal.timeout(timeout),
    });
    status = res.status;
    if (status === 404) {
      await res.body?.cancel();
      throw detailError(404, `No race meeting at courseId ${courseId} on ${date} (external statistics API)`);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw detailError(502, `The external statistics API answered ${status}`);
    }
    body = await res.json();
  } catch (err) {
    if (err instanceof HttpError) throw err;
    if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
      throw detailError(502, `The external statistics API did not answer within ${timeout} ms`);
    }
    if (err instanceof SyntaxError) throw detailError(502, 'The external statistics API answered with a body that is not JSON');
    throw detailError(502, 'The external statistics API could not be reached');
  }
  const parsed = ENDPOINTS[endpoint].safeParse(body);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join('.') || 'body';
    throw detailError(502, `The external statistics API answered off-contract (${where})`);
  }
  return parsed.data as z.infer<(typeof ENDPOINTS)[E]>;
}
