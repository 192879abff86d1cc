import type { RequestHandler } from 'express';
import { HttpError } from './errors';

interface RouteShape {
  method: string;
  path: string;
}

interface Pattern {
  regex: RegExp;
  methods: Set<string>;
}

/** Compiles contract paths (`/v1/orders/:sourceOrderId`) to matchers, grouped by path. */
export function compilePaths(routes: readonly RouteShape[]): Pattern[] {
  const byPath = new Map<string, Pattern>();
  for (const route of routes) {
    let pattern = byPath.get(route.path);
    if (!pattern) {
      const source = route.path
        .split('/')
        .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      pattern = { regex: new RegExp(`^${source}/?$`), methods: new Set() };
      byPath.set(route.path, pattern);
    }
    pattern.methods.add(route.method);
    if (route.method === 'GET') pattern.methods.add('HEAD');
  }
  return [...byPath.values()];
}

/**
 * Runs after every route: a path the contract knows under other methods answers 405 with
 * `Allow` (OPTIONS answers 204 with it); any other path answers 404. Both in the D2 shape.
 */
export function unmatched(routes: readonly RouteShape[]): RequestHandler {
  const patterns = compilePaths(routes);
  return (req, res, next) => {
    const allowed = new Set<string>();
    for (const p of patterns) if (p.regex.test(req.path)) for (const m of p.methods) allowed.add(m);
    if (allowed.size === 0) return next(new HttpError(404, `no route for ${req.method} ${req.path}`));
    const allow = [...allowed, 'OPTIONS'].join(', ');
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', allow);
      res.status(204).end();
      return;
    }
    next(new HttpError(405, `method ${req.method} not allowed on ${req.path}`, { headers: { Allow: allow } }));
  };
}
