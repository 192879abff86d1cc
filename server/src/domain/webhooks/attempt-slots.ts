/**
 * The attempts of a delivering process: at most `WEBHOOK_WORKERS` in flight (D35), however
 * many deliveries its jobs name. A batch of deliveries is reserved before its leases are
 * taken, so that the leases of one batch are taken while the attempts of another are in
 * flight; at most as many deliveries as there are slots wait leased for one, so a leased
 * delivery waits for its slot at most as long as the attempts in flight take (one timeout).
 */
export class AttemptSlots {
  /** Deliveries leased or about to be, not yet attempted: at most `size`, besides those in flight. */
  private reservable: number;
  private free: number;
  private readonly reserving: { want: number; grant: () => void }[] = [];
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {
    this.reservable = 2 * size;
    this.free = size;
  }

  /**
   * Reserves attempts for up to `want` deliveries (at most `size`), all at once, before their
   * leases are taken, waiting until they are free; answers how many it reserved. First come,
   * first served: a batch waiting for several is not overtaken by later ones.
   */
  async reserve(want: number): Promise<number> {
    const n = Math.min(want, Math.max(1, this.size));
    if (this.reserving.length === 0 && this.reservable >= n) {
      this.reservable -= n;
      return n;
    }
    await new Promise<void>((grant) => this.reserving.push({ want: n, grant }));
    return n;
  }

  /** Gives back `n` reservations (deliveries that were not leased, or whose attempt ended). */
  release(n: number): void {
    this.reservable += n;
    while (this.reserving.length > 0 && this.reservable >= this.reserving[0]!.want) {
      const next = this.reserving.shift()!;
      this.reservable -= next.want;
      next.grant();
    }
  }

  /** Makes one reserved attempt once a slot is free, in the order asked; its reservation ends with it. */
  async attempt<T>(run: () => Promise<T>): Promise<T> {
    if (this.free > 0 && this.waiting.length === 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await run();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
      this.release(1);
    }
  }
}
