import net from 'node:net';

/**
 * A loopback port free at the moment of asking (the embedded database, tests, benchmarks):
 * any the kernel gives, or `port`, rejected when it is taken.
 */
export function freePort(port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
