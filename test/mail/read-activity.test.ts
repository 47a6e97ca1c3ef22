import { describe, expect, it } from 'vitest';
import { ReadActivity } from '../../workers/mail/src/mailbox/read-activity';

// The mailbox's background work waits, between two messages, for a moment without the person's
// reads (bounded), so that opening a message is not queued behind the assistant's new-mail work.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ReadActivity', () => {
  it('is quiet at once when nobody has read', async () => {
    const activity = new ReadActivity();
    expect(activity.busyForMs(300)).toBe(0);
    expect(await activity.quiet(300, 2_000)).toBeLessThan(50);
  });

  it('waits while a read is in flight and for the quiet time after it', async () => {
    const activity = new ReadActivity();
    const read = activity.around(() => sleep(200).then(() => 'body'));
    const started = Date.now();
    const quiet = activity.quiet(150, 5_000);
    expect(activity.busyForMs(150)).toBe(150);
    expect(await read).toBe('body');
    await quiet;
    // the read's 200 ms, then 150 ms without one
    expect(Date.now() - started).toBeGreaterThanOrEqual(340);
    expect(activity.busyForMs(150)).toBe(0);
  });

  it('a failing read ends its busy time too', async () => {
    const activity = new ReadActivity();
    await expect(activity.around(() => Promise.reject(new Error('graph_unavailable')))).rejects.toThrow('graph_unavailable');
    await sleep(60);
    expect(activity.busyForMs(50)).toBe(0);
  });

  it('never waits past its bound while reads keep coming', async () => {
    const activity = new ReadActivity();
    let reading = true;
    const reader = (async () => {
      while (reading) await activity.around(() => sleep(20));
    })();
    const started = Date.now();
    const waited = await activity.quiet(300, 400);
    reading = false;
    await reader;
    expect(waited).toBeGreaterThanOrEqual(390);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
