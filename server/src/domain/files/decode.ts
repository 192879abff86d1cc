import { FILE_MAX_PIXELS, type TFileType } from '@protection-service/contract';
import sharp from 'sharp';
import type { SniffedType } from '../../lib/file-types';
import { refuse } from '../../lib/refusal';

// Each upload is decoded once: libvips' operation cache would only hold its memory.
sharp.cache(false);

/** What is stored of an upload (D56): its bytes, their type and a photo's size in pixels. */
export interface StoredForm {
  bytes: Buffer;
  type: TFileType;
  width: number | null;
  height: number | null;
}

const JPEG_QUALITY = 90;

const undecodable = (what: string) => refuse.unprocessable(`the file does not decode as ${what}`);
const tooManyPixels = (width: number, height: number) =>
  refuse.unprocessable(
    `the photo has ${width} x ${height} pixels; at most ${FILE_MAX_PIXELS.toLocaleString('en')} are accepted`,
  );

/**
 * D56: an accepted file made into what is stored. A photo is decoded, turned upright by its
 * orientation tag and encoded again by sharp (libvips) with no metadata at all: no EXIF, no
 * GPS position, no camera serial, no ICC text; HEIC, which sharp's prebuilt libvips cannot
 * decode (its libheif has no HEVC decoder), is decoded by heic-decode (libheif in
 * WebAssembly) and stored as JPEG. The pixel limit is checked from the header, before any
 * pixel is decoded. A PDF is stored as sent once it looks whole.
 */
export async function storedForm(kind: SniffedType, bytes: Buffer): Promise<StoredForm> {
  if (kind === 'pdf') return pdfForm(bytes);
  if (kind === 'heic') return heicForm(bytes);
  const image = sharp(bytes, { limitInputPixels: FILE_MAX_PIXELS, failOn: 'warning', sequentialRead: true });
  const meta = await image.metadata().catch(() => {
    throw undecodable(kind.toUpperCase());
  });
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (width * height > FILE_MAX_PIXELS) throw tooManyPixels(width, height);
  const upright = image.rotate();
  const encoded =
    kind === 'png'
      ? upright.png()
      : kind === 'webp'
        ? upright.webp({ quality: JPEG_QUALITY })
        : upright.jpeg({ quality: JPEG_QUALITY });
  const out = await encoded.toBuffer({ resolveWithObject: true }).catch(() => {
    throw undecodable(kind.toUpperCase());
  });
  const type: TFileType = kind === 'png' ? 'image/png' : kind === 'webp' ? 'image/webp' : 'image/jpeg';
  return { bytes: out.data, type, width: out.info.width, height: out.info.height };
}

async function heicForm(bytes: Buffer): Promise<StoredForm> {
  // libheif in WebAssembly is loaded at the first HEIC, not at every start.
  const { default: heicDecode } = await import('heic-decode');
  let images: Awaited<ReturnType<typeof heicDecode.all>> | undefined;
  try {
    images = await heicDecode.all({ buffer: bytes }).catch(() => {
      throw undecodable('HEIC');
    });
    const first = images[0];
    if (!first) throw undecodable('HEIC');
    if (first.width * first.height > FILE_MAX_PIXELS) throw tooManyPixels(first.width, first.height);
    // libheif applies the image's own rotation and mirror boxes while decoding: upright.
    const raw = await first.decode().catch(() => {
      throw undecodable('HEIC');
    });
    const out = await sharp(Buffer.from(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength), {
      raw: { width: raw.width, height: raw.height, channels: 4 },
    })
      .jpeg({ quality: JPEG_QUALITY })
      .toBuffer({ resolveWithObject: true });
    return { bytes: out.data, type: 'image/jpeg', width: out.info.width, height: out.info.height };
  } finally {
    images?.dispose();
  }
}

/** The end-of-file marker a whole PDF carries in its last bytes. */
const PDF_TAIL = 1024;

function pdfForm(bytes: Buffer): StoredForm {
  if (!/^%PDF-[12]\.\d/.test(bytes.subarray(0, 8).toString('latin1'))) throw undecodable('PDF');
  if (!bytes.subarray(Math.max(0, bytes.length - PDF_TAIL)).includes('%%EOF')) throw undecodable('PDF');
  return { bytes, type: 'application/pdf', width: null, height: null };
}
