import exifr from 'exifr';
import sharp from 'sharp';
import { bearer } from './fixtures';
import type { TestServer } from './server';

/**
 * Files for the upload tests (D56), made here rather than shipped: phone-like photos that carry
 * EXIF with a GPS position and a camera, a photo taken sideways (orientation 6), and the
 * hostile ones of the issue (a PNG named .jpg, SVG, HTML named .png, a pixel bomb, a truncated
 * JPEG, 11 MB).
 */
const GPS = {
  IFD0: { Make: 'Acme Phone', Model: 'AP-1', Software: 'camera 1.0' },
  IFD2: { BodySerialNumber: 'SN-12345' },
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 26/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 39/1' },
};

const canvas = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 180, g: 40, b: 30 } } });

/** A JPEG as a phone writes it: EXIF with a GPS position, a camera and its serial. */
export const gpsJpeg = (width = 64, height = 48) => canvas(width, height).jpeg().withExif(GPS).toBuffer();
export const gpsPng = () => canvas(32, 32).png().withExif(GPS).toBuffer();
export const gpsWebp = () => canvas(32, 24).webp().withExif(GPS).toBuffer();
/** 60 x 20 pixels stored, tagged to be shown turned a quarter clockwise: 20 x 60 upright. */
export const sidewaysJpeg = () => canvas(60, 20).jpeg().withMetadata({ orientation: 6 }).toBuffer();

export const pdf = () =>
  Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');

/** A PNG header claiming 20,000 x 20,000 pixels (400 megapixels), a few hundred bytes in all. */
export async function pixelBomb(): Promise<Buffer> {
  const small = await canvas(8, 8).png().toBuffer();
  const bomb = Buffer.from(small);
  bomb.writeUInt32BE(20_000, 16);
  bomb.writeUInt32BE(20_000, 20);
  return bomb;
}

export const svg = () =>
  Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script></svg>');
export const html = () => Buffer.from('<!doctype html><html><script>alert(document.cookie)</script></html>');

/** A random-noise JPEG, hard to compress, of about `bytes`. */
export async function largeJpeg(bytes: number): Promise<Buffer> {
  const side = Math.ceil(Math.sqrt(bytes / 1.2));
  const noise = Buffer.alloc(side * side * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  return sharp(noise, { raw: { width: side, height: side, channels: 3 } })
    .jpeg({ quality: 100 })
    .toBuffer();
}

/** Whatever EXIF (and GPS) an EXIF reader finds in the bytes; undefined when none. */
export const exifOf = (bytes: Uint8Array) => exifr.parse(Buffer.from(bytes), { gps: true, tiff: true, xmp: true });

/** The tags of what a camera writes (EXIF, GPS, XMP) that an EXIF reader finds: none, for a stored photo. */
export async function cameraTags(bytes: Uint8Array): Promise<string[]> {
  // exifr reads JPEG, PNG, HEIC and TIFF; libvips says what blocks any format carries (WebP too).
  const blocks = await sharp(bytes).metadata();
  const carried = (['exif', 'xmp', 'iptc'] as const).filter((b) => blocks[b] !== undefined);
  const found = ((await exifOf(bytes).catch(() => undefined)) ?? {}) as Record<string, unknown>;
  // A PNG's own header (IHDR: size, depth, colour type) is no metadata about anyone.
  const header = new Set(['ImageWidth', 'ImageHeight', 'BitDepth', 'ColorType', 'Compression', 'Filter', 'Interlace']);
  return [...carried, ...Object.keys(found).filter((k) => !header.has(k))];
}

/** Uploads raw bytes under a name and declared type, as a browser form would send them. */
export function upload(
  server: TestServer,
  token: string,
  bytes: Uint8Array,
  name = 'photo.jpg',
  type = 'image/jpeg',
  purpose: string | null = 'claim_evidence',
): Promise<Response> {
  const form = new FormData();
  if (purpose !== null) form.set('purpose', purpose);
  form.set('file', new Blob([bytes as Uint8Array<ArrayBuffer>], { type }), name);
  return server.request('/v1/files', { method: 'POST', headers: bearer(token), body: form });
}
