import { FINAL_STATUSES, type NormalisedEvent, type TrackingStatus } from './vocabulary';

/** A package's status as its events say, with the times the rules read (D54). */
export interface PackageState {
  status: TrackingStatus;
  subStatus: string | null;
  /** When the current (status, subStatus) began: the first event of it since the last change. */
  statusAt: Date | null;
  /** The latest carrier scan, whatever the status. */
  lastScanAt: Date | null;
  /** Shipping is the first carrier scan (D54). */
  shippedAt: Date | null;
  deliveredAt: Date | null;
}

export type StateEvent = Pick<NormalisedEvent, 'occurredAt' | 'status' | 'subStatus' | 'isCarrierScan' | 'eventKey'>;

/**
 * Events at the same instant apply in the order a package moves: a `delivered` and an
 * `out_for_delivery` stamped with the same minute read as delivered. Finals come last.
 */
const PROGRESS: Readonly<Record<TrackingStatus, number>> = {
  unknown: 0,
  pre_transit: 1,
  in_transit: 2,
  exception: 3,
  out_for_delivery: 4,
  available_for_pickup: 5,
  return_to_sender: 6,
  lost: 7,
  delivered: 8,
};

function compareText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** A total order on events: time, then progress, then key; arrival order never counts. */
export function compareEvents(a: StateEvent, b: StateEvent): number {
  return (
    a.occurredAt.getTime() - b.occurredAt.getTime() ||
    PROGRESS[a.status] - PROGRESS[b.status] ||
    compareText(a.eventKey, b.eventKey) ||
    compareText(a.subStatus, b.subStatus) ||
    Number(a.isCarrierScan) - Number(b.isCarrierScan)
  );
}

/** Whether an event, later-dated than what made the current status, moves it. */
function moves(current: TrackingStatus, next: TrackingStatus): boolean {
  // A code nobody knows says nothing of where a known package is: kept in the history only.
  if (next === 'unknown') return current === 'unknown';
  // D54: a final status holds against later scans of a non-final kind (the carrier's scans of
  // a return's way back, a stray scan after delivery); only another final replaces it, e.g. a
  // lost package found and delivered.
  return !FINAL_STATUSES.has(current) || FINAL_STATUSES.has(next);
}

/**
 * D54: the state is a function of the events ordered by when they happened, never of
 * arrival order: any permutation or duplication of the same events gives the same state.
 * No events: `unknown`, nothing known.
 */
export function packageState(events: readonly StateEvent[]): PackageState {
  const state: PackageState = {
    status: 'unknown',
    subStatus: null,
    statusAt: null,
    lastScanAt: null,
    shippedAt: null,
    deliveredAt: null,
  };
  for (const event of [...events].sort(compareEvents)) {
    if (event.isCarrierScan) {
      state.shippedAt ??= event.occurredAt;
      state.lastScanAt = event.occurredAt;
    }
    if (!moves(state.status, event.status)) continue;
    if (event.status !== state.status || event.subStatus !== state.subStatus || state.statusAt === null) {
      state.status = event.status;
      state.subStatus = event.subStatus;
      state.statusAt = event.occurredAt;
    }
  }
  state.deliveredAt = state.status === 'delivered' ? state.statusAt : null;
  return copyTimes(state);
}

/** The state holds its own dates, never the callers' (a Date can be changed in place). */
function copyTimes(state: PackageState): PackageState {
  const copy = (date: Date | null) => (date ? new Date(date) : null);
  return {
    ...state,
    statusAt: copy(state.statusAt),
    lastScanAt: copy(state.lastScanAt),
    shippedAt: copy(state.shippedAt),
    deliveredAt: copy(state.deliveredAt),
  };
}
