import assert from 'node:assert/strict';
import { FixedLengthStream, installFixedLengthStream } from './fixed-length-stream.ts';
import { R2Bucket } from '../adapters/r2.ts';

const body = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

Deno.test('FixedLengthStream passes exactly the expected bytes through', async () => {
  const stream = new FixedLengthStream(11);
  const piped = body('hello ', 'world').pipeTo(stream.writable);
  assert.equal(await new Response(stream.readable).text(), 'hello world');
  await piped;
  assert.equal(stream.expectedLength, 11);
});

Deno.test('FixedLengthStream errors on too many or too few bytes', async () => {
  const long = new FixedLengthStream(3);
  const longPipe = body('four')
    .pipeTo(long.writable)
    .catch((e) => e);
  await assert.rejects(new Response(long.readable).text(), TypeError);
  assert.ok((await longPipe) instanceof TypeError);

  const short = new FixedLengthStream(10);
  const shortPipe = body('ab')
    .pipeTo(short.writable)
    .catch((e) => e);
  await assert.rejects(new Response(short.readable).text(), TypeError);
  assert.ok((await shortPipe) instanceof TypeError);
  assert.throws(() => new FixedLengthStream(-1), RangeError);
});

Deno.test('an R2 put through a short FixedLengthStream stores nothing (the CMS upload path)', async () => {
  const dir = await Deno.makeTempDir();
  try {
    installFixedLengthStream();
    const Stream = (globalThis as unknown as { FixedLengthStream: typeof FixedLengthStream }).FixedLengthStream;
    const bucket = new R2Bucket(dir);
    const ok = new Stream(5);
    void body('12345').pipeTo(ok.writable);
    assert.equal((await bucket.put('a', ok.readable))?.size, 5);
    const short = new Stream(5);
    void body('12')
      .pipeTo(short.writable)
      .catch(() => undefined);
    await assert.rejects(bucket.put('b', short.readable));
    assert.equal(await bucket.head('b'), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
