import { describe, expect, it } from 'vitest';
import { hammingDistance, perceptualHash, perceptualHashes } from '../../src/domain/files/perceptual-hash';
import { cropped, photo, reencoded, resized } from '../harness/photos';

/**
 * D57: the photo hash finds a photo sent again though re-encoded, resized or cropped by a few
 * per cent (within the Hamming distance of 6 that `photo_reused` counts), and tells unrelated
 * photos apart. Real JPEGs, made and changed by sharp.
 */
describe('perceptual hash (D57)', () => {
  const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

  it('keeps a copy re-encoded at another quality, resized or cropped 2 % a side within 6 bits', async () => {
    for (const seed of SEEDS) {
      const original = await photo(seed);
      const hash = await perceptualHash(original);
      const copies = {
        reencoded: await reencoded(original, 40),
        resized: await resized(original, 300),
        cropped: await cropped(original, 2),
      };
      for (const [how, copy] of Object.entries(copies)) {
        expect(hammingDistance(hash, await perceptualHash(copy)), `seed ${seed} ${how}`).toBeLessThanOrEqual(6);
      }
    }
  });

  /** The closest of the four comparisons the reuse search makes: full and centre, both ways. */
  const closest = (a: { full: bigint; centre: bigint }, b: { full: bigint; centre: bigint }) =>
    Math.min(
      hammingDistance(a.full, b.full),
      hammingDistance(a.full, b.centre),
      hammingDistance(a.centre, b.full),
      hammingDistance(a.centre, b.centre),
    );

  it('keeps a copy cropped 3 % or 5 % a side within 6 bits, full hash to centre hash', async () => {
    for (const seed of SEEDS) {
      const original = await perceptualHashes(await photo(seed));
      for (const percent of [3, 4, 5]) {
        const copy = await perceptualHashes(await cropped(await photo(seed), percent));
        expect(closest(original, copy), `seed ${seed}, ${percent} %`).toBeLessThanOrEqual(6);
        // The other way round (the cropped photo came first) is the same comparison.
        expect(closest(copy, original)).toBe(closest(original, copy));
      }
    }
  });

  it('puts unrelated photos more than 6 bits apart, whichever of their hashes are compared', async () => {
    const hashes = await Promise.all(SEEDS.map(async (seed) => perceptualHashes(await photo(seed))));
    for (let i = 0; i < hashes.length; i++) {
      for (let j = i + 1; j < hashes.length; j++) {
        expect(closest(hashes[i]!, hashes[j]!), `${SEEDS[i]} and ${SEEDS[j]}`).toBeGreaterThan(6);
      }
    }
  });

  it('puts unrelated photos more than 6 bits apart', async () => {
    const hashes = await Promise.all(SEEDS.map(async (seed) => perceptualHash(await photo(seed))));
    for (let i = 0; i < hashes.length; i++) {
      for (let j = i + 1; j < hashes.length; j++) {
        expect(hammingDistance(hashes[i]!, hashes[j]!), `${SEEDS[i]} and ${SEEDS[j]}`).toBeGreaterThan(6);
      }
    }
  });

  it('is a signed 64-bit integer, the same for the same bytes', async () => {
    const bytes = await photo(9);
    const hash = await perceptualHash(bytes);
    expect(hash).toBe(await perceptualHash(bytes));
    expect(BigInt.asIntN(64, hash)).toBe(hash);
    expect(hammingDistance(hash, hash)).toBe(0);
    expect(hammingDistance(0n, -1n)).toBe(64);
  });
});
