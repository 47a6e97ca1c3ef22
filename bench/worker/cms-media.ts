import { initPhoton } from '@cf-wasm/photon';
import { mediaConfigSchema } from '../../workers/cms/src/media/config.ts';
import { newPendingKey } from '../../workers/cms/src/media/keys.ts';
import { checkPending, promotePhoto } from '../../workers/cms/src/media/store.ts';
import { makeVariants } from '../../workers/cms/src/media/variants.ts';

// A Worker used only by `npm run bench -- cms-media`: the CMS's own variant code, in workerd.
type BenchEnv = { MEDIA: R2Bucket; SESSION_SECRET: string };

/** WASM linear memory only grows: its size is the high-water mark of Photon's heap in this isolate. */
async function wasmBytes(): Promise<number> {
  const photon = await initPhoton.ensure();
  return photon.memory.buffer.byteLength;
}

export default {
  async fetch(request: Request, env: BenchEnv): Promise<Response> {
    const { pathname, searchParams } = new URL(request.url);
    if (pathname === '/echo') {
      // The same body transfer as the others, with no image work: the baseline to subtract.
      const bytes = new Uint8Array(await request.arrayBuffer());
      return Response.json({ bytes: bytes.length });
    }
    if (pathname === '/memory') return Response.json({ wasmBytes: await wasmBytes() });
    if (pathname === '/variants') {
      const made = makeVariants(new Uint8Array(await request.arrayBuffer()));
      return Response.json({
        width: made.width,
        height: made.height,
        variants: made.variants.map((v) => ({ slot: v.slot, width: v.width, bytes: v.bytes.length })),
      });
    }
    if (pathname === '/promote') {
      // Step 2's object work: pending upload checked, read, variants made, four objects written.
      const config = mediaConfigSchema.parse(env);
      const contentType = searchParams.get('contentType') ?? 'image/jpeg';
      const key = newPendingKey('original', contentType);
      await env.MEDIA.put(key, await request.arrayBuffer(), { httpMetadata: { contentType } });
      const head = await checkPending(env.MEDIA, config, key, 'original', 'objectKey');
      const photo = await promotePhoto(env.MEDIA, config, head, 'objectKey');
      await env.MEDIA.delete([key, photo.key, ...Object.values(photo.variants)]);
      return Response.json({ width: photo.width, height: photo.height });
    }
    return new Response('not found', { status: 404 });
  },
};
