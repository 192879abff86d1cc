/**
 * The write paths' figures committed for one machine class (figures.json): each guarded row's
 * ratio to its baseline in the same run, as `pnpm bench writes` measured it there. `pnpm
 * bench writes` prints them beside what it measures; `pnpm bench guard` (guard.ts) fails a
 * row that lost more than a third of its committed ratio.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Fsync } from './lib';

/** The rows guarded: each against its baseline in the same run (writes.ts). */
export const GUARDED_ROWS = ['order', 'subscriber', 'quote', 'claim'] as const;
export type GuardedRow = (typeof GUARDED_ROWS)[number];
export type Ratios = Partial<Record<GuardedRow, number>>;

export interface Figures {
  /** The machine the figures were measured on, and how busy it was. */
  machine: string;
  measured: string;
  ratios: Record<`fsync ${Fsync}`, Ratios>;
}

export const FIGURES_FILE = path.join(import.meta.dirname, 'figures.json');

export function committedFigures(): Figures {
  return JSON.parse(readFileSync(FIGURES_FILE, 'utf8')) as Figures;
}

export function committedRatio(fsync: Fsync, row: GuardedRow): number | undefined {
  return committedFigures().ratios[`fsync ${fsync}`]?.[row];
}

/** A row loses when its ratio falls below two thirds of the committed one. */
export const LOSS = 1 / 3;
