import { PhotonImage, resample, resize, SamplingFilter } from '@cf-wasm/photon';

/** The resized copies made of every photo, largest first (each is made from the one before). */
export const PHOTO_VARIANTS = [
  { slot: 'large', width: 1200 },
  { slot: 'medium', width: 600 },
  { slot: 'thumbnail', width: 150 },
] as const;
export type VariantSlot = (typeof PHOTO_VARIANTS)[number]['slot'];

export const VARIANT_CONTENT_TYPE = 'image/jpeg';
const JPEG_QUALITY = 82;

export type Variant = { slot: VariantSlot; width: number; height: number; bytes: Uint8Array };

/** The original could not be decoded (corrupt or truncated). */
export class ImageDecodeError extends Error {}

/**
 * Decodes the original once and writes each variant as JPEG, never wider than the original.
 * The first step down from the original uses Photon's `resample`, which needs only its output
 * buffer: the triangle filter (`resize`) copies the original and holds a float buffer of
 * width × original height, which takes a 3000×2000 photo from ≈ 80 to ≈ 115 MB of WASM memory.
 * The smaller variants come from the large one with the triangle filter (cheap at that size).
 * Every Photon image is freed as soon as it is used: WASM memory is not garbage collected.
 */
export function makeVariants(original: Uint8Array): { width: number; height: number; variants: Variant[] } {
  let source: PhotonImage;
  try {
    source = PhotonImage.new_from_byteslice(original);
  } catch (err) {
    throw new ImageDecodeError(err instanceof Error ? err.message : String(err));
  }
  const width = source.get_width();
  const height = source.get_height();
  const variants: Variant[] = [];
  try {
    let previous = source;
    for (const { slot, width: target } of PHOTO_VARIANTS) {
      const w = Math.min(target, previous.get_width());
      const h = Math.max(1, Math.round((height * w) / width));
      const image =
        w === previous.get_width() && previous !== source
          ? previous
          : previous === source
            ? resample(previous, w, h)
            : resize(previous, w, h, SamplingFilter.Triangle);
      variants.push({ slot, width: image.get_width(), height: image.get_height(), bytes: image.get_bytes_jpeg(JPEG_QUALITY) });
      if (previous !== image) previous.free();
      previous = image;
    }
    previous.free();
  } catch (err) {
    throw new ImageDecodeError(err instanceof Error ? err.message : String(err));
  }
  return { width, height, variants };
}
