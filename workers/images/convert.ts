/**
 * Converting one downloaded image with sharp (libvips): the main 720 px AVIF and the 200 px `_t`
 * thumbnail (src/domain/images.ts settings), each fitted inside a square of that side, never
 * enlarged, EXIF orientation applied (metadata stripped). The header is read first, so a
 * decompression bomb (a small file of huge dimensions) is refused before any pixel is decoded.
 */
import sharp, { type Metadata, type Sharp } from 'sharp';
import { AVIF_EFFORT, AVIF_QUALITY, IMAGE_SIDE, THUMB_SIDE } from '../../src/domain/images.js';
import { ImageError } from './fetch.js';

/** One encoded size. */
export interface EncodedImage {
  data: Buffer;
  width: number;
  height: number;
}

/** Both sizes of one image. */
export interface ConvertedImage {
  main: EncodedImage;
  thumb: EncodedImage;
  /** The source's format as sharp read it (jpeg, png, webp, gif, heif…). */
  sourceFormat: string;
}

/** Default largest source, in pixels (width × height): 50 megapixels. */
export const DEFAULT_MAX_PIXELS = 50_000_000;

async function encode(input: Sharp, side: number): Promise<EncodedImage> {
  const { data, info } = await input
    .clone()
    .resize(side, side, { fit: 'inside', withoutEnlargement: true })
    .avif({ quality: AVIF_QUALITY, effort: AVIF_EFFORT })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * Converts `bytes` to the two AVIF sizes.
 * @throws ImageError `not-image` when sharp cannot read the bytes (not an image, truncated,
 *   corrupt) and `too-large` when the image has more than `maxPixels` pixels.
 */
export async function convertImage(bytes: Buffer, maxPixels = DEFAULT_MAX_PIXELS): Promise<ConvertedImage> {
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (e) {
    throw new ImageError('not-image', `not a readable image: ${(e as Error).message}`, false);
  }
  const { width, height, format } = meta;
  if (!width || !height) throw new ImageError('not-image', `no dimensions in the ${format ?? 'unknown'} header`, false);
  if (width * height > maxPixels) {
    throw new ImageError('too-large', `${width}×${height} is over the ${maxPixels}-pixel cap`, false);
  }
  try {
    // failOn 'error': a truncated or corrupt file is refused rather than converted half grey.
    const input = sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' }).autoOrient();
    const [main, thumb] = await Promise.all([encode(input, IMAGE_SIDE), encode(input, THUMB_SIDE)]);
    return { main, thumb, sourceFormat: format ?? 'unknown' };
  } catch (e) {
    throw new ImageError('not-image', `cannot decode the ${format ?? 'unknown'} image: ${(e as Error).message}`, false);
  }
}
