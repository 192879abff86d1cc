import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does with one request:
 * - `pass`: forwards it and relays the answer;
 * - `{ status, headers?, body? }`: answers that itself, without forwarding (a gateway's 503);
 * - `drop-answer`: forwards it, waits for the service's whole answer (so the change is
 *   committed), then closes the connection without relaying it (an answer lost on the way);
 * - `reset`: closes the connection without forwarding (a connection that failed).
 */
export type Fault =
  | 'pass'
  | 'drop-answer'
  | 'reset'
  | { status: number; headers?: Record<string, string>; body?: string };

export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** What the proxy did with it. */
  fault: Fault;
}

export interface FaultProxy {
  /** Give this to the client as its `baseUrl`. */
  baseUrl: string;
  /** Every request that reached the proxy, in order. */
  seen: SeenRequest[];
  /** Queues faults for the next requests that `match` (all requests by default); the rest pass. */
  inject(faults: Fault[], match?: (method: string, path: string) => boolean): void;
  close(): Promise<void>;
}

/**
 * A small HTTP proxy on loopback in front of a real server, which breaks chosen requests the
 * way networks and gateways do, so the SDK's retries are tested against real sockets.
 */
export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const seen: SeenRequest[] = [];
  const queues: { match: (method: string, path: string) => boolean; faults: Fault[] }[] = [];

  const next = (method: string, path: string): Fault => {
    const queue = queues.find((q) => q.faults.length > 0 && q.match(method, path));
    return queue?.faults.shift() ?? 'pass';
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const fault = next(method, path.split('?')[0]!);
    seen.push({ method, path, headers: req.headers, body, fault });

    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (typeof fault === 'object') {
      res.writeHead(fault.status, { 'content-type': 'text/plain', ...fault.headers });
      res.end(fault.body ?? '');
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || name === 'host' || name === 'connection') continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const answer = await fetch(upstream + path, {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : body,
    });
    const answerBody = Buffer.from(await answer.arrayBuffer());
    if (fault === 'drop-answer') {
      req.socket.destroy();
      return;
    }
    const relayed: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name))
        relayed[name] = value;
    });
    res.writeHead(answer.status, relayed);
    res.end(answerBody);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    inject(faults, match = () => true) {
      queues.unshift({ match, faults: [...faults] });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
