import { freePort } from '../../src/free-port';

/**
 * A loopback port for a listener a test stops and starts again on it (its own PostgreSQL or
 * pooler): below the kernel's ephemeral range (32768 and up on Linux), where no outgoing
 * connection takes it while the listener is down, and free at the moment of asking.
 */
export async function restartablePort(): Promise<number> {
  for (;;) {
    const port = await freePort(20_000 + Math.floor(Math.random() * 12_000)).catch(() => undefined);
    if (port !== undefined) return port;
  }
}
