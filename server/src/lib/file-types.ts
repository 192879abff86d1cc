/**
 * What a file is, known by its first bytes alone (D56): the declared type and the name are
 * never asked. `undefined` for anything else (SVG, HTML, GIF, TIFF, AVIF, a zip, text), and
 * for a start too short to tell.
 */
export type SniffedType = 'jpeg' | 'png' | 'webp' | 'heic' | 'pdf';

/** Bytes enough to tell every accepted type apart. */
export const SNIFF_BYTES = 12;

/** The major brands of an ISO-BMFF `ftyp` box that name an HEIF image (HEIC from phones). */
const HEIF_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'mif1', 'msf1']);

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b);

const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));

export function sniffType(bytes: Uint8Array): SniffedType | undefined {
  if (bytes.length < SNIFF_BYTES) return undefined;
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp';
  if (ascii(bytes, 4, 8) === 'ftyp' && HEIF_BRANDS.has(ascii(bytes, 8, 12))) return 'heic';
  if (ascii(bytes, 0, 5) === '%PDF-') return 'pdf';
  return undefined;
}

/** The one refusal of a file of no accepted type (415). */
export const UNSUPPORTED_TYPE =
  'the file is not a JPEG, PNG, WebP or HEIC photo or a PDF (known by its bytes; its name and declared type are ignored)';
