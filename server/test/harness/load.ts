/** One request of a load run, as its client saw it. */
export interface Answer {
  /**
   * The HTTP status, or how the request failed without one: `refused` (no connection could
   * be made: the server sees nothing), `reset` (the connection failed with the request on
   * it), `timeout` (no answer within CLIENT_TIMEOUT_MS).
   */
  status: number | 'refused' | 'reset' | 'timeout';
  retryAfter: string | null;
  /** When it was sent and how long it took (ms). */
  at: number;
  ms: number;
}

interface OrderLoad {
  answers: Answer[];
  /** Order ids answered 2xx: each must be in the database with what was sent. */
  acknowledged: Set<string>;
  /** Stops the writers; resolves once each has had its last answer. */
  stop(): Promise<void>;
}

/** No request of the load waits longer than this for its answer: a longer wait is a hang. */
const CLIENT_TIMEOUT_MS = 15_000;

/**
 * `writers` clients writing new protected orders as fast as they are answered, each retrying
 * an unanswered or refused write of the same order (as the SDK's retry does) after 50 ms or
 * the Retry-After it was given, whichever is shorter in a test.
 */
export function writeOrders(options: { url: string; token: string; writers: number; prefix: string }): OrderLoad {
  const answers: Answer[] = [];
  const acknowledged = new Set<string>();
  let running = true;
  const writer = async (w: number) => {
    for (let n = 0; running; ) {
      const id = `${options.prefix}-${w}-${n}`;
      const at = Date.now();
      let answer: Answer;
      try {
        const res = await fetch(`${options.url}/v1/orders/${id}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(orderBody(id)),
          signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
        });
        await res.arrayBuffer();
        answer = { status: res.status, retryAfter: res.headers.get('retry-after'), at, ms: Date.now() - at };
      } catch (err) {
        answer = { status: failure(err), retryAfter: null, at, ms: Date.now() - at };
      }
      answers.push(answer);
      if (typeof answer.status === 'number' && answer.status < 300) {
        acknowledged.add(id);
        n++;
      } else await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const done = Promise.all(Array.from({ length: options.writers }, (_, w) => writer(w)));
  return {
    answers,
    acknowledged,
    async stop() {
      running = false;
      await done;
    },
  };
}

function failure(err: unknown): 'refused' | 'reset' | 'timeout' {
  if ((err as Error).name === 'TimeoutError') return 'timeout';
  const code = (err as { cause?: { code?: string } }).cause?.code;
  return code === 'ECONNREFUSED' ? 'refused' : 'reset';
}

/** The body written for order `id`: its premium tells it apart when read back. */
export function orderBody(id: string) {
  return {
    sourceOrderNumber: `#${id}`,
    currency: 'USD',
    platformId: 'shopify',
    total: 50,
    premiumPaid: 1.5,
    sourceCreatedAt: '2026-11-01T10:00:00.000Z',
  };
}
