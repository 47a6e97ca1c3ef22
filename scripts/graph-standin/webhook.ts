import type { Account, Delivery } from './account.ts';
import { guid } from './ids.ts';

export type WebhookAnswer = { status: number | null; contentType: string; body: string; durationMs: number; error: string | null };

/** One webhook call: over HTTP, or held in the account's outbox until a test answers it. */
export async function callWebhook(
  account: Account,
  kind: Delivery['kind'],
  url: string,
  body: string,
  contentType: string,
  timeoutMs: number,
  closing: AbortSignal,
): Promise<WebhookAnswer> {
  const started = Date.now();
  const headers = { 'content-type': contentType };
  if (account.webhookMode === 'queue') {
    return new Promise<WebhookAnswer>((resolve) => {
      const id = guid();
      const timer = setTimeout(() => {
        const i = account.outbox.findIndex((item) => item.id === id);
        if (i >= 0) account.outbox.splice(i, 1);
        resolve({ status: null, contentType: '', body: '', durationMs: Date.now() - started, error: `no answer within ${timeoutMs} ms` });
      }, timeoutMs);
      account.outbox.push({
        id,
        kind,
        url,
        method: 'POST',
        headers,
        body,
        enqueuedAt: started,
        resolve: (answer) => {
          clearTimeout(timer);
          resolve({
            status: answer.status,
            contentType: answer.contentType,
            body: answer.body,
            durationMs: Date.now() - started,
            error: null,
          });
        },
      });
      for (const wake of [...account.outboxWaiters]) {
        account.outboxWaiters.delete(wake);
        wake();
      }
    });
  }
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), closing]),
      redirect: 'manual',
    });
    const text = await res.text();
    return {
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      body: text,
      durationMs: Date.now() - started,
      error: null,
    };
  } catch (err) {
    const error =
      err instanceof Error && err.name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : err instanceof Error
          ? err.cause instanceof Error
            ? err.cause.message
            : err.message
          : String(err);
    return { status: null, contentType: '', body: '', durationMs: Date.now() - started, error };
  }
}
