import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { R2Bucket, R2ObjectBody } from './r2.ts';

async function withBucket(run: (bucket: R2Bucket, dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await run(new R2Bucket(`${dir}/media`), `${dir}/media`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test('R2: put and get round-trip bytes, HTTP and custom metadata', () =>
  withBucket(async (bucket, dir) => {
    const put = await bucket.put('photo/a b/ü?#.jpg', bytes('hello world'), {
      httpMetadata: { contentType: 'image/jpeg', cacheControl: 'max-age=60', cacheExpiry: new Date('2030-01-01T00:00:00Z') },
      customMetadata: { area: 'BarrierTrials', fileName: 'x.csv' },
    });
    const md5 = createHash('md5').update('hello world').digest('hex');
    assert.equal(put.key, 'photo/a b/ü?#.jpg');
    assert.equal(put.size, 11);
    assert.equal(put.etag, md5);
    assert.equal(put.httpEtag, `"${md5}"`);
    assert.ok(put.uploaded instanceof Date);
    assert.equal(put.storageClass, 'Standard');
    assert.deepEqual(put.checksums.toJSON(), { md5 });
    assert.equal(put.checksums.md5?.byteLength, 16);

    const got = await bucket.get('photo/a b/ü?#.jpg');
    assert.ok(got instanceof R2ObjectBody);
    assert.equal(got.bodyUsed, false);
    assert.equal(await got.text(), 'hello world');
    assert.equal(got.bodyUsed, true);
    await assert.rejects(got.arrayBuffer(), TypeError);
    assert.deepEqual(got.httpMetadata, {
      contentType: 'image/jpeg',
      cacheControl: 'max-age=60',
      cacheExpiry: new Date('2030-01-01T00:00:00Z'),
    });
    assert.deepEqual(got.customMetadata, { area: 'BarrierTrials', fileName: 'x.csv' });
    assert.deepEqual(got.range, { offset: 0, length: 11 });
    const headers = new Headers();
    got.writeHttpMetadata(headers);
    assert.equal(headers.get('content-type'), 'image/jpeg');
    assert.equal(headers.get('cache-control'), 'max-age=60');
    assert.equal(headers.get('expires'), 'Tue, 01 Jan 2030 00:00:00 GMT');

    // a new bucket over the same directory sees the same object (the files are the truth)
    const again = await new R2Bucket(dir).head('photo/a b/ü?#.jpg');
    assert.equal(again?.etag, md5);
    assert.equal(again?.version, put.version);
    assert.equal(await bucket.head('missing'), null);
    assert.equal(await bucket.get('missing'), null);
  }));

Deno.test('R2: every kind of value can be put; the body reads every way', () =>
  withBucket(async (bucket) => {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes('{"a":'));
        c.enqueue(bytes('1}'));
        c.close();
      },
    });
    await bucket.put('stream', stream, { httpMetadata: new Headers({ 'content-type': 'application/json' }) });
    assert.deepEqual(await (await bucket.get('stream'))!.json(), { a: 1 });
    assert.equal((await bucket.head('stream'))!.httpMetadata?.contentType, 'application/json');
    await bucket.put('buffer', new Uint8Array([1, 2, 3]).buffer);
    assert.deepEqual(await (await bucket.get('buffer'))!.bytes(), new Uint8Array([1, 2, 3]));
    await bucket.put('view', new Uint8Array([0, 9, 8, 7, 0]).subarray(1, 4));
    assert.deepEqual(new Uint8Array(await (await bucket.get('view'))!.arrayBuffer()), new Uint8Array([9, 8, 7]));
    await bucket.put('blob', new Blob(['blob text']));
    assert.equal(await (await (await bucket.get('blob'))!.blob()).text(), 'blob text');
    await bucket.put('empty', null);
    assert.equal((await bucket.head('empty'))!.size, 0);
    assert.equal(await (await bucket.get('empty'))!.text(), '');
    const big = new Uint8Array(200_000).map((_, i) => i % 251);
    await bucket.put('big', big);
    assert.deepEqual(new Uint8Array(await new Response((await bucket.get('big'))!.body).arrayBuffer()), big);
    // a stream that fails stores nothing
    const failing = new ReadableStream({
      pull() {
        throw new Error('broke off');
      },
    });
    await assert.rejects(bucket.put('failed', failing), /broke off/);
    assert.equal(await bucket.head('failed'), null);
    await assert.rejects(bucket.put('bad-md5', 'x', { md5: '00'.repeat(16) }), /MD5/);
    assert.equal(await bucket.head('bad-md5'), null);
  }));

Deno.test('R2: ranges by offset/length, suffix and Range header', () =>
  withBucket(async (bucket) => {
    await bucket.put('k', '0123456789');
    const read = async (range: Parameters<R2Bucket['get']>[1]) => {
      const object = (await bucket.get('k', range)) as R2ObjectBody;
      return [await object.text(), object.range];
    };
    assert.deepEqual(await read({ range: { offset: 2, length: 3 } }), ['234', { offset: 2, length: 3 }]);
    assert.deepEqual(await read({ range: { offset: 7 } }), ['789', { offset: 7, length: 3 }]);
    assert.deepEqual(await read({ range: { length: 2 } }), ['01', { offset: 0, length: 2 }]);
    assert.deepEqual(await read({ range: { suffix: 4 } }), ['6789', { offset: 6, length: 4 }]);
    assert.deepEqual(await read({ range: { offset: 0, length: 32 } }), ['0123456789', { offset: 0, length: 10 }]);
    assert.deepEqual(await read({ range: new Headers({ range: 'bytes=1-3' }) }), ['123', { offset: 1, length: 3 }]);
    assert.deepEqual(await read({ range: new Headers({ range: 'bytes=8-' }) }), ['89', { offset: 8, length: 2 }]);
    assert.deepEqual(await read({ range: new Headers({ range: 'bytes=-3' }) }), ['789', { offset: 7, length: 3 }]);
    await assert.rejects(bucket.get('k', { range: { offset: 10, length: 1 } }), /not satisfiable/);
  }));

Deno.test('R2: conditional get and put by etag and upload time', () =>
  withBucket(async (bucket) => {
    const put = await bucket.put('k', 'v1');
    const body = (result: unknown) => result !== null && typeof result === 'object' && 'body' in result;
    assert.ok(body(await bucket.get('k', { onlyIf: { etagMatches: put.etag } })));
    const refused = await bucket.get('k', { onlyIf: { etagMatches: 'other' } });
    assert.ok(refused && !body(refused));
    assert.equal(refused!.etag, put.etag);
    assert.ok(!body(await bucket.get('k', { onlyIf: { etagDoesNotMatch: put.etag } })));
    assert.ok(body(await bucket.get('k', { onlyIf: new Headers({ 'if-match': put.httpEtag }) })));
    assert.ok(!body(await bucket.get('k', { onlyIf: new Headers({ 'if-none-match': `W/${put.httpEtag}, "zzz"` }) })));
    assert.ok(body(await bucket.get('k', { onlyIf: new Headers({ 'if-none-match': '"zzz"' }) })));
    assert.ok(!body(await bucket.get('k', { onlyIf: { uploadedAfter: new Date(Date.now() + 60_000) } })));
    assert.ok(body(await bucket.get('k', { onlyIf: { uploadedBefore: new Date(Date.now() + 60_000) } })));
    assert.ok(!body(await bucket.get('k', { onlyIf: new Headers({ 'if-modified-since': new Date(Date.now() + 60_000).toUTCString() }) })));
    // a put whose condition fails writes nothing and answers null
    assert.equal(await bucket.put('k', 'v2', { onlyIf: { etagMatches: 'stale' } }), null);
    assert.equal(await (await bucket.get('k'))!.text(), 'v1');
    assert.ok(await bucket.put('k', 'v2', { onlyIf: { etagMatches: put.etag } }));
    assert.equal(await (await bucket.get('k'))!.text(), 'v2');
    // create-only: etagDoesNotMatch "*" holds only when nothing is stored
    assert.ok(await bucket.put('new', 'x', { onlyIf: { etagDoesNotMatch: '*' } }));
    assert.equal(await bucket.put('new', 'y', { onlyIf: { etagDoesNotMatch: '*' } }), null);
  }));

Deno.test('R2: list with prefix, delimiter, cursor, limit and include', () =>
  withBucket(async (bucket) => {
    const keys = [
      'examples/BarrierTrials/a.csv',
      'examples/BarrierTrials/b.csv',
      'examples/Sectional/c.csv',
      'examples/top.csv',
      'tmp/x/y.csv',
      'z',
    ];
    for (const key of keys) await bucket.put(key, key, { httpMetadata: { contentType: 'text/csv' }, customMetadata: { key } });

    const all = await bucket.list();
    assert.deepEqual(
      all.objects.map((o) => o.key),
      keys,
    );
    assert.equal(all.truncated, false);
    assert.equal(all.objects[0]!.httpMetadata, undefined);
    assert.equal(all.objects[0]!.customMetadata, undefined);

    const included = await bucket.list({ prefix: 'tmp/', include: ['httpMetadata', 'customMetadata'] });
    assert.deepEqual(
      included.objects.map((o) => [o.key, o.httpMetadata?.contentType, o.customMetadata?.key]),
      [['tmp/x/y.csv', 'text/csv', 'tmp/x/y.csv']],
    );

    const folders = await bucket.list({ prefix: 'examples/', delimiter: '/' });
    assert.deepEqual(
      folders.objects.map((o) => o.key),
      ['examples/top.csv'],
    );
    assert.deepEqual(folders.delimitedPrefixes, ['examples/BarrierTrials/', 'examples/Sectional/']);

    const top = await bucket.list({ delimiter: '/' });
    assert.deepEqual(top.delimitedPrefixes, ['examples/', 'tmp/']);
    assert.deepEqual(
      top.objects.map((o) => o.key),
      ['z'],
    );

    // pages of two: a delimited prefix counts as one entry and is not repeated on the next page
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await bucket.list({ limit: 2, delimiter: '/', prefix: 'examples/', cursor });
      pages++;
      seen.push(...page.delimitedPrefixes, ...page.objects.map((o) => o.key));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    assert.equal(pages, 2);
    assert.deepEqual(seen.sort(), ['examples/BarrierTrials/', 'examples/Sectional/', 'examples/top.csv']);

    const paged: string[] = [];
    cursor = undefined;
    do {
      const page = await bucket.list({ limit: 4, cursor });
      paged.push(...page.objects.map((o) => o.key));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    assert.deepEqual(paged, keys);
    assert.deepEqual(
      (await bucket.list({ startAfter: 'examples/top.csv' })).objects.map((o) => o.key),
      ['tmp/x/y.csv', 'z'],
    );
  }));

Deno.test('R2: delete one key or many; keys never reach outside the bucket', () =>
  withBucket(async (bucket, dir) => {
    for (const key of ['a', 'b', 'c', '../../escape', '/abs/path', '..', '.']) await bucket.put(key, key);
    await bucket.delete('a');
    await bucket.delete(['b', 'c', 'never-there']);
    assert.deepEqual((await bucket.list()).objects.map((o) => o.key).sort(), ['.', '..', '../../escape', '/abs/path']);
    assert.equal(await (await bucket.get('../../escape'))!.text(), '../../escape');
    const parent = `${dir}/..`;
    const names: string[] = [];
    for await (const entry of Deno.readDir(parent)) names.push(entry.name);
    assert.deepEqual(names, ['media']);
    for await (const entry of Deno.readDir(dir)) assert.match(entry.name, /^[0-9a-f]{64}(\.json|\.[0-9a-f]{32}\.data)$/);
    await assert.rejects(bucket.put('k'.repeat(1025), 'x'), /not valid/);
  }));
