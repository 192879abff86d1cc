import { EventEmitter } from 'node:events';
import { type Runner, run, type TaskList, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import type { Logger } from 'pino';
import { createDb, type Db, handleConnectionErrors, POOL_WAIT_MS } from './db/database';
import { queueLogger } from './db/queue-logger';
import { isConcurrencyAbort, isDatabaseUnavailable } from './db/unavailable';
import { foldRollups } from './domain/analytics/rollups';
import { type ClaimLinks, claimLinks, viewClaimUrl } from './domain/claims/links';
import { recomputePendingRisk } from './domain/claims/risk/recompute';
import { fillCentreHashes, sweepUnattachedFiles } from './domain/files/files';
import type { FileStorageConfig } from './domain/files/storage';
import { type FileStorage, openFileStorage } from './domain/files/storage';
import { type ClaimUrlOf, type MailLinks, runMail } from './domain/mail/deliver';
import { MAIL_TASK, sweepMail } from './domain/mail/outbox';
import { createMailer, type SendResult } from './domain/mail/send';
import type { MailSettings } from './domain/mail/settings';
import { invitationLinks, invitationUrl } from './domain/team/members';
import { EVALUATE_TASK } from './domain/tracking/ingest';
import { evaluatePackageNow, sweepTracking, TRACKING_SWEEP_EVERY_MS } from './domain/tracking-claims/evaluate';
import { AttemptSlots } from './domain/webhooks/attempt-slots';
import { runDeliveries, sweepExpiredLeases } from './domain/webhooks/deliveries';
import { DELIVER_TASK, type DeliveryJob, deliveriesOf } from './domain/webhooks/enqueue';
import { EventPruner } from './domain/webhooks/retention';
import { type AttemptResult, delivered } from './domain/webhooks/send';
import type { WebhookSettings } from './domain/webhooks/settings';
import { type Loop, startLoop } from './lib/loop';
import { inJobSpan } from './lib/tracing';
import type { ServiceMetrics } from './metrics';

/** How often each delivering process looks for expired leases (and for mail to queue, D42). */
const SWEEP_INTERVAL_MS = 1000;

export interface Delivery {
  stop(): Promise<void>;
}

/** The shopper's claim link of a message's claim (D41), which mail is handed rather than importing claims. */
const claimUrls =
  (links: ClaimLinks): ClaimUrlOf =>
  (linkId) =>
    viewClaimUrl(links, linkId);

/**
 * Delivers webhooks from this process (D32, D35) on graphile-worker, which wakes on
 * LISTEN/NOTIFY when a job is added and polls (each idle worker once a second) only to find
 * jobs scheduled in the future (retries). It runs `WEBHOOK_WORKERS` jobs at once; a job names
 * up to 10 deliveries, and the process's `AttemptSlots` keep its attempts in flight to
 * `WEBHOOK_WORKERS` whatever the jobs hold. graphile-worker
 * would hand a job held by a dead process to another only after 4 hours, so attempts carry
 * our own short lease instead, and every delivering process sweeps once a second for expired
 * leases, for due deliveries nobody took and for deliveries whose job was never queued
 * (`sweepExpiredLeases`).
 *
 * E-mail to shoppers (D42) runs on the same queue as its own task, `mail_send`, sharing the
 * concurrency; its sweep (`sweepMail`) likewise queues due messages nobody queued.
 */
export async function startDelivery(deps: {
  config: WebhookSettings & MailSettings & { fileStorage: FileStorageConfig };
  logger: Logger;
  connectionString: string;
  /**
   * D48: `connectionString` names a pooler in transaction mode; graphile-worker's pool (its
   * LISTEN for new jobs, its session-level state) then connects to `directConnectionString`.
   */
  transactionPooler?: boolean;
  directConnectionString?: string;
  /** Where attempt and job figures go (the process's, served on METRICS_PORT). */
  metrics?: Pick<ServiceMetrics, 'webhookAttempt' | 'mailAttempt' | 'job'>;
}): Promise<Delivery> {
  const { config, logger } = deps;
  // Delivery commits without waiting for the WAL flush. A database crash may lose its last
  // commits, and with them nothing: a lost lease is taken again, a lost outcome leaves the
  // lease to expire and the attempt is made again (at least once), a lost job completion
  // re-runs a job whose delivery is already decided. Events themselves are recorded by the
  // API's transactions, which wait for the flush as usual.
  // Behind a transaction pooler (D48) these commits wait for the flush: no startup settings there.
  const db = createDb(deps.connectionString, {
    max: config.webhookWorkers + 2,
    applicationName: 'protection-service-webhooks',
    asyncCommit: true,
    transactionPooler: deps.transactionPooler,
  });
  const pool = queuePool(deps.directConnectionString ?? deps.connectionString, config.webhookWorkers);
  const mailer = createMailer(config);
  const links = mailLinks(config);
  const slots = new AttemptSlots(config.webhookWorkers);
  const attempted = attemptFigures(deps.metrics);
  const mailed = (outcome: SendResult['outcome'], seconds: number) => deps.metrics?.mailAttempt(outcome, seconds);
  const runner = new RestartingRunner(pool, logger, (events) =>
    run({
      events,
      pgPool: pool,
      concurrency: config.webhookWorkers,
      noHandleSignals: true,
      pollInterval: 1000,
      // Completions and failures batched per tick: a completed job that a crash leaves locked
      // only runs again after 4 hours, and then finds its delivery decided (the lease says so).
      // Batched, a completion or failure that cannot be recorded (the database gone) shuts the
      // pool down, which the runner's restart notices; unbatched, a failure's record is left
      // as an unhandled rejection and its job locked to a pool that runs on (D46).
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      logger: queueLogger(logger),
      taskList: observedTasks(deps.metrics, {
        [DELIVER_TASK]: async (payload: unknown) => {
          // Errors here are the database's (the attempt itself never throws): the queue retries.
          await runDeliveries(db, config, slots, deliveriesOf(payload as DeliveryJob), attempted);
        },
        [MAIL_TASK]: async (payload: unknown) => {
          await runMail(db, config, links, mailer, logger, (payload as { id: string }).id, mailed);
        },
        // D54: a package whose events changed, evaluated as of the process clock.
        [EVALUATE_TASK]: async (payload: unknown) => {
          await evaluatePackageNow(db, (payload as { packageId: string }).packageId, new Date(), 'changed');
        },
      }),
    }),
  );
  await runner.start();
  const sweep = startSweeps(db, logger);
  const pruner = startRetention(db, logger, config.eventRetentionDays);
  const tracking = startTrackingSweep(db, logger);
  const files = startFileSweep(db, openFileStorage(config.fileStorage), logger);
  return {
    async stop() {
      await Promise.all([sweep.stop(), tracking.stop(), files.stop()]);
      await pruner.stop();
      await runner.stop();
      mailer.close();
      await pool.end();
      await db.destroy();
    },
  };
}

/** D41: the links of each message (a claim's, an invitation's), under keys derived once. */
function mailLinks(config: MailSettings): MailLinks {
  const invitation = invitationLinks(config.secretKey, config.publicBaseUrl);
  return {
    claimUrlOf: claimUrls(claimLinks(config.secretKey, config.publicBaseUrl)),
    invitationUrlOf: (linkId) => invitationUrl(invitation, linkId),
    publicBaseUrl: config.publicBaseUrl,
  };
}

/** Each attempt's outcome and time in the process's figures. */
function attemptFigures(metrics: Pick<ServiceMetrics, 'webhookAttempt'> | undefined) {
  return (result: AttemptResult) =>
    metrics?.webhookAttempt(
      delivered(result) ? 'delivered' : result.statusCode === null ? 'unreachable' : 'rejected',
      result.durationMs / 1000,
    );
}

/**
 * Each task run in a span of its own (`inJobSpan`: a job is part of the trace that queued it),
 * its duration and outcome counted in `metrics`.
 */
function observedTasks(
  metrics: Pick<ServiceMetrics, 'job'> | undefined,
  tasks: Record<string, (payload: unknown) => Promise<void>>,
): TaskList {
  const observed = (task: string, run: (payload: unknown) => Promise<void>) => async (payload: unknown) => {
    const started = performance.now();
    try {
      await inJobSpan(task, payload, () => run(payload));
      metrics?.job(task, 'completed', (performance.now() - started) / 1000);
    } catch (err) {
      metrics?.job(task, 'failed', (performance.now() - started) / 1000);
      throw err;
    }
  };
  return Object.fromEntries(Object.entries(tasks).map(([task, run]) => [task, observed(task, run)]));
}

/**
 * The queue's pool. It holds a LISTEN session for the life of the runner, so it always connects
 * directly (graphile-worker needs a session-level connection: a transaction pooler would
 * swallow its notifications, D48). Direct, it keeps its startup setting.
 */
function queuePool(connectionString: string, workers: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: workers + 2,
    application_name: 'protection-service-webhook-queue',
    options: '-c synchronous_commit=off',
    connectionTimeoutMillis: POOL_WAIT_MS,
  });
  handleConnectionErrors(pool);
  return pool;
}

/**
 * The sweeps of forgotten deliveries and e-mail, the fold of the analytics rollups' pending
 * rows (D52) and the claims whose risk is to be computed again (D57), every SWEEP_INTERVAL_MS,
 * one run at a time.
 */
function startSweeps(db: Db, logger: Logger): Loop {
  return startLoop('delivery sweeps', { everyMs: SWEEP_INTERVAL_MS, log: logger }, () =>
    Promise.all([
      sweepExpiredLeases(db)
        .then((n) => n > 0 && logger.warn({ deliveries: n }, 'webhook leases expired; attempts re-queued'))
        .catch((err) => sweepFailed(logger, err, 'webhook lease sweep failed')),
      sweepMail(db)
        .then((n) => n > 0 && logger.info({ messages: n }, 'mail queued by the sweep'))
        .catch((err) => sweepFailed(logger, err, 'mail sweep failed')),
      foldRollups(db).catch((err) => sweepFailed(logger, err, 'analytics rollup fold failed')),
      recomputePendingRisk(db).catch((err) => sweepFailed(logger, err, 'claim risk recompute failed')),
    ]),
  );
}

/**
 * D48: old webhook events whose deliveries are all final are deleted by the delivering
 * processes, once a minute each, in batches of their own short transactions.
 */
function startRetention(db: Db, logger: Logger, retentionDays: number): EventPruner {
  return new EventPruner(db, retentionDays, (outcome) => {
    if ('error' in outcome) sweepFailed(logger, outcome.error, 'webhook event retention failed');
    else if (outcome.events > 0) logger.info({ ...outcome, retentionDays }, 'old webhook events deleted');
  });
}

/**
 * D54: the packages still under way, evaluated as of the process clock every
 * TRACKING_SWEEP_EVERY_MS by each delivering process, one run at a time. Two processes
 * sweeping at once do no harm: a package is evaluated under its row's lock, and files once.
 */
function startTrackingSweep(db: Db, logger: Logger): Loop {
  return startLoop('tracking sweep', { everyMs: TRACKING_SWEEP_EVERY_MS, log: logger }, () =>
    sweepTracking(db, new Date())
      .then(({ evaluated, failed, firstError }) => {
        if (failed > 0) sweepFailed(logger, firstError, `tracking sweep: ${failed} packages failed`);
        else if (evaluated > 0) logger.debug({ packages: evaluated }, 'tracking rules evaluated');
      })
      .catch((err: unknown) => sweepFailed(logger, err, 'tracking sweep failed')),
  );
}

/** How often each delivering process deletes the files attached to nothing for a day (D56). */
const FILE_SWEEP_EVERY_MS = 60_000;

/**
 * D56: files attached to nothing within 24 hours, deleted with their bytes once a minute, a
 * batch at a time until none is left; then (D57) the photos stored before their centre hash
 * was kept, hashed the same way. A storage out of reach leaves both for the next run.
 */
function startFileSweep(db: Db, storage: FileStorage, logger: Logger): { stop(): Promise<void> } {
  const loop = startLoop('file sweep', { everyMs: FILE_SWEEP_EVERY_MS, log: logger }, async (stopping) => {
    let deleted = 0;
    for (let n = -1; n !== 0 && !stopping(); deleted += n) n = await sweepUnattachedFiles(db, storage);
    if (deleted > 0) logger.info({ files: deleted }, 'unattached files deleted');
    let hashed = 0;
    for (let n = -1; n !== 0 && !stopping(); hashed += n) n = await fillCentreHashes(db, storage);
    if (hashed > 0) logger.info({ files: hashed }, 'centre hashes of earlier photos written');
  });
  return {
    async stop() {
      await loop.stop();
      storage.close();
    },
  };
}

/**
 * A sweep that found the database out of reach, or that PostgreSQL ended for a concurrent
 * change, tries again in a second: a warning, not a fault.
 */
function sweepFailed(logger: Logger, err: unknown, message: string): void {
  if (isDatabaseUnavailable(err) || isConcurrencyAbort(err)) logger.warn({ err }, message);
  else logger.error({ err }, message);
}

const MIN_RESTART_MS = 100;
const MAX_RESTART_MS = 5000;

/**
 * graphile-worker's runner, started again whenever it ends by itself (D46). When it cannot
 * record a job's outcome (the database went away mid-run) it stops its workers and rejects;
 * left so, the process would deliver nothing until restarted. Nothing is lost across the gap:
 * a job whose outcome was not recorded runs again once its lease expires (the sweeps).
 */
class RestartingRunner {
  private current: Runner | undefined;
  /** Which launch is the live one: events of an older runner change nothing. */
  private generation = 0;
  /** The worker pool of the runner that ended: its jobs are freed once a new one runs. */
  private lostPoolId: string | undefined;
  private poolId: string | undefined;
  private stopping = false;
  private restarting = false;
  private backoff = MIN_RESTART_MS;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    private readonly launch: (events: WorkerEvents) => Promise<Runner>,
  ) {}

  /** Starts the first runner; its failure (the database unreachable at start) is the caller's. */
  async start(): Promise<void> {
    await this.launchWatched();
  }

  /**
   * Starts a runner and watches for its end: its promise settling, or its pool shutting down
   * by itself (a worker that lost its connection mid-job makes the pool shut down, and a
   * shutdown that cannot reach the database may never settle the promise).
   */
  private async launchWatched(): Promise<void> {
    const generation = ++this.generation;
    const ended = (err: unknown) => {
      if (generation === this.generation && !this.restarting) void this.restart(err);
    };
    const events: WorkerEvents = new EventEmitter();
    events.on('pool:create', ({ workerPool }) => {
      this.poolId = workerPool.id;
    });
    events.on('pool:gracefulShutdown', ({ message }) => ended(message));
    events.on('pool:forcefulShutdown', ({ message }) => ended(message));
    const runner = await this.launch(events);
    if (generation !== this.generation) return;
    this.current = runner;
    runner.promise.then(
      () => ended('the job runner ended'),
      (err: unknown) => ended(err),
    );
  }

  private async restart(err: unknown): Promise<void> {
    // Whatever this generation does from now on is ignored.
    this.generation++;
    const ended = this.current;
    this.current = undefined;
    if (this.stopping) return;
    this.lostPoolId = this.poolId ?? this.lostPoolId;
    this.logger.warn({ err }, 'job runner stopped; starting it again');
    void ended?.stop().catch(() => {});
    this.restarting = true;
    try {
      while (!this.stopping) {
        await new Promise((resolve) => setTimeout(resolve, this.backoff).unref());
        this.backoff = Math.min(this.backoff * 2, MAX_RESTART_MS);
        if (this.stopping) return;
        try {
          await this.launchWatched();
        } catch (startErr) {
          this.logger.warn({ err: startErr }, 'job runner could not start; trying again');
          continue;
        }
        this.restarting = false;
        if (this.stopping) return void (await this.stop());
        this.backoff = MIN_RESTART_MS;
        await this.freeLostJobs();
        this.logger.info('job runner running again');
        return;
      }
    } finally {
      this.restarting = false;
    }
  }

  /**
   * Jobs the ended runner had taken stay locked to its pool, which graphile-worker would free
   * only after 4 hours; no one else runs them, so they are freed now (and run again: an
   * attempt whose outcome was recorded finds its delivery decided).
   */
  private async freeLostJobs(): Promise<void> {
    const lost = this.lostPoolId;
    if (!lost) return;
    try {
      await this.pool.query('select graphile_worker.force_unlock_workers($1::text[])', [[lost]]);
      this.lostPoolId = undefined;
    } catch (err) {
      // Left to the lease sweep, which queues such deliveries again within a minute.
      this.logger.warn({ err }, 'could not free the jobs of the stopped job runner');
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.current?.stop().catch(() => {});
  }
}
