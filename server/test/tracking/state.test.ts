import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseInbound, type TrackingProvider } from '../../src/domain/tracking/providers';
import { type PackageState, packageState, type StateEvent } from '../../src/domain/tracking/state';
import { TRACKING_STATUSES, type TrackingStatus } from '../../src/domain/tracking/vocabulary';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');

function event(day: number, status: TrackingStatus, subStatus: string | null = null, key?: string): StateEvent {
  return {
    occurredAt: new Date(T0 + day * DAY),
    status,
    subStatus,
    isCarrierScan: status !== 'pre_transit' && status !== 'unknown',
    eventKey: key ?? `${status}-${day}-${subStatus ?? ''}`,
  };
}

const at = (day: number) => new Date(T0 + day * DAY);

describe('packageState (D54)', () => {
  it('knows nothing of a package without events', () => {
    expect(packageState([])).toEqual({
      status: 'unknown',
      subStatus: null,
      statusAt: null,
      lastScanAt: null,
      shippedAt: null,
      deliveredAt: null,
    });
  });

  it('reads events by when they happened, not by when they arrived', () => {
    const events = [
      event(4, 'delivered'),
      event(1, 'pre_transit'),
      event(3, 'out_for_delivery'),
      event(2, 'in_transit'),
    ];
    expect(packageState(events)).toEqual({
      status: 'delivered',
      subStatus: null,
      statusAt: at(4),
      lastScanAt: at(4),
      shippedAt: at(2),
      deliveredAt: at(4),
    });
  });

  it('never lets a final status fall back to an earlier-dated one arriving late', () => {
    for (const final of ['delivered', 'lost', 'return_to_sender'] as const) {
      const state = packageState([event(5, final), event(3, 'in_transit'), event(4, 'exception', 'delayed')]);
      expect(state).toMatchObject({ status: final, statusAt: at(5) });
    }
  });

  it('holds a final status against later-dated non-final scans, which still count as scans', () => {
    const returning = [event(1, 'in_transit'), event(3, 'return_to_sender', 'returning'), event(5, 'in_transit')];
    expect(packageState(returning)).toMatchObject({ status: 'return_to_sender', statusAt: at(3), lastScanAt: at(5) });
    const stray = [event(1, 'in_transit'), event(2, 'delivered'), event(6, 'exception')];
    expect(packageState(stray)).toMatchObject({ status: 'delivered', deliveredAt: at(2), lastScanAt: at(6) });
  });

  it('lets a later-dated final replace a final: a lost package found and delivered', () => {
    const state = packageState([event(1, 'in_transit'), event(10, 'lost', 'lost'), event(12, 'delivered')]);
    expect(state).toMatchObject({ status: 'delivered', subStatus: null, deliveredAt: at(12) });
    const returned = packageState([
      event(3, 'return_to_sender', 'returning'),
      event(6, 'return_to_sender', 'returned'),
    ]);
    expect(returned).toMatchObject({ status: 'return_to_sender', subStatus: 'returned', statusAt: at(6) });
  });

  it('keeps a known status when a later event carries a code nobody knows', () => {
    const state = packageState([event(0, 'unknown'), event(1, 'in_transit'), event(2, 'unknown')]);
    expect(state).toMatchObject({ status: 'in_transit', statusAt: at(1), lastScanAt: at(1), shippedAt: at(1) });
    expect(packageState([event(0, 'unknown')])).toMatchObject({ status: 'unknown', statusAt: at(0), shippedAt: null });
  });

  it('dates a status from its first event, and a change of subStatus is a change', () => {
    const state = packageState([event(1, 'in_transit'), event(2, 'in_transit'), event(3, 'in_transit', 'delayed')]);
    expect(state).toMatchObject({ status: 'in_transit', subStatus: 'delayed', statusAt: at(3) });
    expect(packageState([event(1, 'in_transit'), event(2, 'in_transit')])).toMatchObject({ statusAt: at(1) });
  });

  it('orders events at the same instant as a package moves: delivered after out for delivery', () => {
    const state = packageState([event(2, 'delivered', null, 'a'), event(2, 'out_for_delivery', null, 'b')]);
    expect(state.status).toBe('delivered');
  });

  it('hands out its own dates', () => {
    const events = [event(1, 'in_transit')];
    const state = packageState(events);
    state.lastScanAt!.setTime(0);
    expect(events[0]!.occurredAt).toEqual(at(1));
  });

  it('reads the fixtures as the carrier told them', () => {
    const cases: [TrackingProvider, string, Partial<PackageState>][] = [
      ['aftership', 'delivered', { status: 'delivered', deliveredAt: new Date('2026-11-19T19:31:00Z') }],
      ['aftership', 'returned', { status: 'return_to_sender', subStatus: 'returned' }],
      ['easypost', 'lost', { status: 'lost', subStatus: 'lost', shippedAt: new Date('2026-11-06T18:00:00Z') }],
      ['easypost', 'damaged', { status: 'exception', subStatus: 'damaged' }],
      ['ship24', 'stalled', { status: 'in_transit', lastScanAt: new Date('2026-11-04T08:00:00Z') }],
      ['ship24', 'unknown-codes', { status: 'exception', subStatus: null, statusAt: new Date('2026-11-03T00:00:00Z') }],
    ];
    for (const [provider, name, expected] of cases) {
      const parsed = parseInbound(
        provider,
        readFileSync(new URL(`./fixtures/${provider}/${name}.json`, import.meta.url)),
      );
      if (!parsed.ok) throw new Error(parsed.reason);
      expect(packageState(parsed.packages[0]!.events), `${provider}/${name}`).toMatchObject(expected);
    }
  });
});

/** A package's events: a few days (so that times tie), any status, keys unique to their event. */
const arbEvents = fc
  .array(
    fc.record({
      day: fc.integer({ min: 0, max: 6 }),
      hour: fc.constantFrom(0, 12),
      status: fc.constantFrom(...TRACKING_STATUSES),
      subStatus: fc.constantFrom(null, 'delayed', 'damaged', 'returning'),
    }),
    { maxLength: 12 },
  )
  .map((drafts) =>
    drafts.map(
      ({ day, hour, status, subStatus }, index): StateEvent => ({
        occurredAt: new Date(T0 + day * DAY + hour * 3_600_000),
        status,
        subStatus,
        isCarrierScan: status !== 'pre_transit' && status !== 'unknown',
        eventKey: `evt-${index}`,
      }),
    ),
  );

describe('packageState: properties (D54)', () => {
  it('gives the same state for any permutation and duplication of the events', () => {
    fc.assert(
      fc.property(
        arbEvents.chain((events) =>
          fc.tuple(
            fc.constant(events),
            fc
              .shuffledSubarray(events)
              .chain((dups) => fc.shuffledSubarray([...events, ...dups], { minLength: events.length + dups.length })),
          ),
        ),
        ([events, shuffled]) => {
          expect(packageState(shuffled)).toEqual(packageState(events));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('ends in the same state whatever deliveries the events came in, and in what order', () => {
    fc.assert(
      fc.property(
        arbEvents,
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 12, maxLength: 12 }),
        fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
        (events, deliveryOf, order) => {
          // Each event goes out in one or more deliveries (every payload repeats the history).
          const deliveries = [0, 1, 2, 3].map((d) => events.filter((_, i) => (deliveryOf[i] ?? 0) <= d || i % 4 === d));
          const sequence = [...deliveries.keys()].sort((a, b) => (order[a] ?? 0) - (order[b] ?? 0) || a - b);
          const seen: StateEvent[] = [];
          const transitions: string[] = [];
          let state = packageState([]);
          for (const index of sequence) {
            seen.push(...deliveries[index]!);
            state = packageState(seen);
            const label = `${state.status}/${state.subStatus ?? ''}`;
            if (transitions.at(-1) !== label) transitions.push(label);
          }
          const all = packageState(events);
          expect(state).toEqual(all);
          expect(transitions.at(-1) ?? 'unknown/').toBe(`${all.status}/${all.subStatus ?? ''}`);
        },
      ),
      { numRuns: 500 },
    );
  });
});
