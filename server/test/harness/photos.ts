import sharp from 'sharp';

/**
 * Photo-like pictures for the perceptual hash's tests and bench (D57), made with sharp: a
 * gradient and, drawn by a seeded generator, overlapping shapes of many sizes and colours, so
 * two seeds give two unrelated pictures and one seed always the same. Then the copies a
 * shopper might send again: re-encoded at another quality, resized, cropped by a few per cent.
 */

/** A small seeded generator (mulberry32): the same seed, the same picture. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const colour = (r: () => number) => `rgb(${Math.floor(r() * 256)},${Math.floor(r() * 256)},${Math.floor(r() * 256)})`;

/** The SVG of picture `seed`, `width` × `height`. */
function scene(seed: number, width: number, height: number): string {
  const r = random(seed);
  const shapes: string[] = [];
  for (let i = 0; i < 40; i++) {
    const x = r() * width;
    const y = r() * height;
    const size = (0.03 + r() * 0.3) * width;
    shapes.push(
      r() < 0.5
        ? `<circle cx="${x}" cy="${y}" r="${size / 2}" fill="${colour(r)}" fill-opacity="${0.5 + r() / 2}"/>`
        : `<rect x="${x - size / 2}" y="${y - size / 3}" width="${size}" height="${(size * 2) / 3}" fill="${colour(r)}" transform="rotate(${r() * 90} ${x} ${y})"/>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="${colour(r)}"/><stop offset="1" stop-color="${colour(r)}"/>
    </linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/>${shapes.join('')}</svg>`;
}

/** Picture `seed` as a JPEG of `width` × `height` at `quality`. */
export function photo(seed: number, { width = 640, height = 480, quality = 90 } = {}): Promise<Buffer> {
  return sharp(Buffer.from(scene(seed, width, height)))
    .jpeg({ quality })
    .toBuffer();
}

/** The same photo encoded again at another quality. */
export const reencoded = (bytes: Buffer, quality = 55) => sharp(bytes).jpeg({ quality }).toBuffer();

/** The same photo resized to `width` pixels wide. */
export const resized = (bytes: Buffer, width = 400) => sharp(bytes).resize({ width }).jpeg().toBuffer();

/** The same photo with `percent` per cent cut from each side. */
export async function cropped(bytes: Buffer, percent = 3): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(bytes).metadata();
  const dx = Math.round((width * percent) / 100);
  const dy = Math.round((height * percent) / 100);
  return sharp(bytes)
    .extract({ left: dx, top: dy, width: width - 2 * dx, height: height - 2 * dy })
    .jpeg()
    .toBuffer();
}
