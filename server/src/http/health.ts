import { Router } from 'express';
import { sql } from 'kysely';
import type { Db } from '../db/database';
import { errorBody } from './errors';

/**
 * `GET /healthz`: the process answers. `GET /readyz`: it can also reach Postgres (503
 * otherwise, and while shutting down), so a load balancer stops sending it traffic.
 */
export function health(db: Db, isShuttingDown: () => boolean = () => false): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (isShuttingDown()) {
      res.status(503).json(errorBody(503, 'shutting down'));
      return;
    }
    try {
      await sql`select 1`.execute(db);
      res.json({ status: 'ok' });
    } catch {
      res.status(503).json(errorBody(503, 'database unavailable'));
    }
  });
  return router;
}
