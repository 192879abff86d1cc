import { setImmediate as nextTurn } from 'node:timers/promises';
import { context, type Link, ROOT_CONTEXT } from '@opentelemetry/api';
import { currentTraceparent, inSpan, linkTo, SpanKind, tracingOn } from '../lib/tracing';
import type { Db } from './database';

/** Most keys one write takes. */
const BATCH = 1000;

/**
 * With tracing on, a batch's write serves many requests, so it belongs to none: it runs in a
 * trace of its own (`batch <write>`, its statements under it) with a link to the span of each
 * request (or job) whose keys it carries, so each queued job can be found from the request
 * that queued it and back. Without this the write, begun in the context of whichever change
 * started the batch, would sit in that one request's trace and be missing from the others'.
 * Links are kept once per span; past the SDK's limit (128 a span) the rest are dropped.
 */
function batchLinks(links: readonly (Link | undefined)[]): Link[] {
  const unique = new Map<string, Link>();
  for (const link of links) if (link) unique.set(link.context.spanId, link);
  return [...unique.values()];
}

/**
 * Keys of rows that committed changes left for after their commit (an outbox's rows to
 * queue), written in batches by one statement each. Keys gather while a batch is in flight,
 * so under load each write carries many; when idle a key waits one turn of the event loop.
 * A write that fails is dropped: its rows stay unqueued, and the outbox's sweep queues them a
 * moment later, so nothing is lost, only delayed.
 */
class CommittedBatches<K> {
  private waiting: K[] = [];
  /** With tracing on, the link to the span that handed in each waiting key (`waiting`'s order). */
  private links: (Link | undefined)[] = [];
  private draining: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly write: (db: Db, keys: readonly K[]) => Promise<unknown>,
  ) {}

  /** Resolves once `keys` have been written (or left to the sweep). */
  add(keys: readonly K[]): Promise<void> {
    this.waiting.push(...keys);
    if (tracingOn()) {
      const link = linkTo(currentTraceparent());
      for (let i = 0; i < keys.length; i++) this.links.push(link);
      // Outside the trace of the change that starts the batch: each write makes its own.
      this.draining ??= context.with(ROOT_CONTEXT, () => this.drain());
    }
    this.draining ??= this.drain();
    return this.draining;
  }

  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      await nextTurn();
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, BATCH);
        const links = this.links.splice(0, BATCH);
        await this.traced(batch, links).catch(() => {});
      }
    } finally {
      this.draining = undefined;
    }
  }

  /** One batch's write: with tracing on, in a span of its own linked to the spans that handed its keys in. */
  private traced(batch: readonly K[], links: readonly (Link | undefined)[]): Promise<unknown> {
    if (!tracingOn()) return this.write(this.db, batch);
    return inSpan(
      `batch ${this.write.name || 'write'}`,
      {
        kind: SpanKind.PRODUCER,
        parent: ROOT_CONTEXT,
        links: batchLinks(links),
        attributes: { 'messaging.batch.message_count': batch.length },
      },
      () => this.write(this.db, batch),
    );
  }
}

const batches = new WeakMap<Db, Map<unknown, CommittedBatches<unknown>>>();

/**
 * Hands `keys` to the batches of `write` on `db` (one batcher per database and write);
 * resolves once they have been written.
 */
export function writeInBatches<K>(
  db: Db,
  write: (db: Db, keys: readonly K[]) => Promise<unknown>,
  keys: readonly K[],
): Promise<void> {
  if (keys.length === 0) return Promise.resolve();
  let ofDb = batches.get(db);
  if (!ofDb) {
    ofDb = new Map();
    batches.set(db, ofDb);
  }
  let batcher = ofDb.get(write) as CommittedBatches<K> | undefined;
  if (!batcher) {
    batcher = new CommittedBatches(db, write);
    ofDb.set(write, batcher as CommittedBatches<unknown>);
  }
  return batcher.add(keys);
}

/** Resolves once every key handed to `writeInBatches` on `db` has been written: for a clean stop. */
export async function batchesWritten(db: Db): Promise<void> {
  for (const batcher of batches.get(db)?.values() ?? []) await batcher.settled();
}
