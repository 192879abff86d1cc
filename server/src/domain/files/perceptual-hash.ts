import sharp, { type Sharp } from 'sharp';

/**
 * D57: a photo's 64-bit perceptual hash (pHash), kept in `files.perceptual_hash`, so a photo
 * sent again on another claim is found though it was re-encoded at another quality, resized or
 * cropped by a few per cent: the photo made greyscale and 32 × 32, its two-dimensional cosine
 * transform (DCT-II, its cosines stretched, see STRETCH), and one bit per coefficient of the
 * 8 × 8 lowest frequencies (the constant term left out of the median): set when the
 * coefficient is above their median. Re-encoding and resizing move
 * the low frequencies very little; two unrelated photos differ in about half the bits.
 * A photo also keeps the hash of its centre (`centreHash`), for crops.
 * `hammingDistance` counts the bits two hashes differ in; the store's search runs in SQL
 * (`bit_count`, ./photo-matches.ts) when the photo is stored, with the same meaning.
 */

const SIDE = 32;
const LOW = 8;
/**
 * The cosines are stretched by this factor (frequency u / 1.5 half-cycles across the picture,
 * not u) and centred on the picture's middle: a crop cuts the picture about its middle and
 * moves a cosine's phase in proportion to its frequency, and the plain DCT's 8th frequency
 * turned a 3 % crop into up to 12 differing bits. The picture's mean is taken out first (a
 * stretched cosine does not sum to zero). Measured on 150 generated photos
 * (server/test/harness/photos.ts; the table is D57's in docs/decisions.md): re-encoded at
 * quality 40 or resized to 300 px wide, at most 2 differing bits; cropped 2 % a side, more
 * than 6 for 7 photos of 150, 3 % for 33; unrelated photos, 13 or more. The centre hash
 * (CENTRE) brings crops of up to 5 % a side within 6 bits.
 */
const STRETCH = 1.5;

/** The transform's basis, computed once: BASIS[u][x] for u < LOW, x < SIDE. */
const BASIS: Float64Array[] = Array.from({ length: LOW }, (_, u) =>
  Float64Array.from({ length: SIDE }, (_, x) =>
    Math.cos(((x + 0.5 - SIDE / 2 + (SIDE * STRETCH) / 2) * u * Math.PI) / (SIDE * STRETCH)),
  ),
);

/** The 8 × 8 lowest coefficients of a SIDE × SIDE greyscale image, row by row. */
function lowFrequencies(pixels: Uint8Array): Float64Array {
  let mean = 0;
  for (const p of pixels) mean += p;
  mean /= pixels.length;
  // Rows first: for each image row y, its LOW coefficients along x.
  const rows = new Float64Array(SIDE * LOW);
  for (let y = 0; y < SIDE; y++) {
    for (let u = 0; u < LOW; u++) {
      let sum = 0;
      const basis = BASIS[u]!;
      for (let x = 0; x < SIDE; x++) sum += (pixels[y * SIDE + x]! - mean) * basis[x]!;
      rows[y * LOW + u] = sum;
    }
  }
  const out = new Float64Array(LOW * LOW);
  for (let v = 0; v < LOW; v++) {
    const basis = BASIS[v]!;
    for (let u = 0; u < LOW; u++) {
      let sum = 0;
      for (let y = 0; y < SIDE; y++) sum += rows[y * LOW + u]! * basis[y]!;
      out[v * LOW + u] = sum;
    }
  }
  return out;
}

/** The hash of a SIDE × SIDE greyscale image, as a signed 64-bit integer (PostgreSQL's bigint). */
export function hashOfPixels(pixels: Uint8Array): bigint {
  const coefficients = lowFrequencies(pixels);
  const sorted = [...coefficients.subarray(1)].sort((a, b) => a - b);
  const median = (sorted[31]! + sorted[32]!) / 2;
  let hash = 0n;
  for (let i = 0; i < LOW * LOW; i++) hash = (hash << 1n) | (coefficients[i]! > median ? 1n : 0n);
  return BigInt.asIntN(64, hash);
}

/** The perceptual hash of an encoded photo (JPEG, PNG, WebP), upright as stored. */
export async function perceptualHash(bytes: Buffer): Promise<bigint> {
  return hashOf(sharp(bytes, { failOn: 'none' }));
}

/**
 * The share of each side the centre hash keeps: the middle 90 % of the photo, 5 % cut from
 * each side. A copy cropped by c a side then compares, full to centre, as a crop of
 * |0.9 / (1 − 2c) − 1| / 2 a side: a 3 % crop as 2.1 %, a 5 % crop as none; crops up to 2 %
 * still match full to full.
 */
export const CENTRE = 0.9;

/**
 * D57: the hash of a photo's centre (`CENTRE` of each side), kept beside its full hash in
 * `files.perceptual_hash_centre`: the reuse search compares full and centre hashes both ways,
 * which finds copies cropped by up to 5 % a side (measured, D57) that the full hash alone
 * misses past 2 %.
 */
export async function centreHash(bytes: Buffer): Promise<bigint> {
  const image = sharp(bytes, { failOn: 'none' });
  const { width = 0, height = 0 } = await image.metadata();
  const dx = Math.round((width * (1 - CENTRE)) / 2);
  const dy = Math.round((height * (1 - CENTRE)) / 2);
  if (width - 2 * dx < 1 || height - 2 * dy < 1) return hashOf(image);
  return hashOf(image.extract({ left: dx, top: dy, width: width - 2 * dx, height: height - 2 * dy }));
}

/** Both hashes of a photo, as `perceptual_hash` and `perceptual_hash_centre` keep them. */
export async function perceptualHashes(bytes: Buffer): Promise<{ full: bigint; centre: bigint }> {
  const [full, centre] = await Promise.all([perceptualHash(bytes), centreHash(bytes)]);
  return { full, centre };
}

async function hashOf(image: Sharp): Promise<bigint> {
  const { data } = await image
    .flatten({ background: '#ffffff' })
    .toColourspace('b-w')
    .resize(SIDE, SIDE, { fit: 'fill', kernel: 'cubic' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return hashOfPixels(new Uint8Array(data.buffer, data.byteOffset, SIDE * SIDE));
}

/** How many bits two hashes differ in. */
export function hammingDistance(a: bigint, b: bigint): number {
  let x = BigInt.asUintN(64, a ^ b);
  let n = 0;
  while (x > 0n) {
    x &= x - 1n;
    n++;
  }
  return n;
}
