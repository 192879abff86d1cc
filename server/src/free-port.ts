import net from 'node:net';

/** A loopback port free at the moment of asking (the embedded database, tests, benchmarks). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * A loopback port for a listener that is stopped and started again on it (a test's own
 * PostgreSQL or pooler): below the kernel's ephemeral range (32768 and up on Linux), where no
 * outgoing connection takes it while the listener is down, and free at the moment of asking.
 */
export async function restartablePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.unref();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
