import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { contract, formatScopeRule, isRouteMeta } from '../src/index';

/** routes.tsv is the product's list of every route; read it at test time, never copy it. */
const TSV = path.resolve(import.meta.dirname, '../../docs/routes.tsv');

interface Row {
  method: string;
  path: string;
  auth: string;
  scopes: string;
  success: string;
  body: string;
  source: string;
  /** The contract key `group.name`: the route's handler is `name` in server/src/routes/<group>, and its operationId. */
  operation: string;
}

function readRows(): Row[] {
  const [header, ...lines] = readFileSync(TSV, 'utf8').trim().split('\n');
  const cols = header!.split('\t');
  return lines.map((line) => {
    const cells = line.split('\t');
    return Object.fromEntries(cols.map((c, i) => [c, cells[i] ?? ''])) as unknown as Row;
  });
}

function contractRows(): Row[] {
  const out: Row[] = [];
  for (const [group, routes] of Object.entries(contract as unknown as Record<string, Record<string, AppRoute>>)) {
    for (const [name, route] of Object.entries(routes)) {
      const meta = route.metadata;
      if (!isRouteMeta(meta)) throw new Error(`${group}.${name} lacks metadata`);
      const success = Object.keys(route.responses)
        .map(Number)
        .filter((s) => s >= 200 && s < 300);
      out.push({
        method: route.method,
        path: route.path,
        auth: meta.auth,
        scopes: formatScopeRule(meta.scopes),
        success: success.map(String).join(','),
        body: meta.body,
        source: meta.source,
        operation: `${group}.${name}`,
      });
    }
  }
  return out;
}

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

describe('contract == routes.tsv', () => {
  const rows = readRows();
  const defined = contractRows();

  it('routes.tsv lists 104 routes', () => {
    expect(rows).toHaveLength(104);
  });

  it('has its columns in order, the operation last, and every row a cell in each', () => {
    const [header, ...lines] = readFileSync(TSV, 'utf8').trim().split('\n');
    const columns = ['method', 'path', 'auth', 'scopes', 'success', 'body', 'source', 'operation'];
    expect(header!.split('\t')).toEqual(columns);
    for (const line of lines) expect(line.split('\t'), line).toHaveLength(columns.length);
  });

  it('defines exactly the routes of routes.tsv, each once', () => {
    expect(defined.map(key).sort()).toEqual(rows.map(key).sort());
    expect(new Set(defined.map(key)).size).toBe(defined.length);
  });

  for (const row of rows) {
    it(`${row.method} ${row.path}: auth, scopes, success status, body, source, operation`, () => {
      const route = defined.find((d) => key(d) === key(row));
      expect(route, 'route missing from the contract').toBeDefined();
      expect(route).toEqual(row);
    });
  }

  it('every route declares the D2 error statuses of its auth kind', () => {
    for (const [group, routes] of Object.entries(contract as unknown as Record<string, Record<string, AppRoute>>)) {
      for (const [name, route] of Object.entries(routes)) {
        const meta = route.metadata as { auth: string };
        const statuses = Object.keys(route.responses).map(Number);
        const expected = {
          token: [400, 401, 403, 404, 429],
          dashboard: [400, 401, 429],
          client: [400, 401, 429],
          public: [429],
          // D54: a provider's delivery is refused (401) on its signature, never by scope.
          provider: [400, 401, 429],
        }[meta.auth]!;
        for (const s of expected) expect(statuses, `${group}.${name} lacks ${s}`).toContain(s);
      }
    }
  });
});
