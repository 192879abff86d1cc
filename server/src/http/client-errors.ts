import { randomUUID } from 'node:crypto';
import { maxHeaderSize, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * What Node's HTTP parser refuses before a request exists, by its error code: headers past
 * `maxHeaderSize` together (request line included), chunk extensions past Node's limit, a
 * request slower than HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS (D46), and anything that is
 * not well-formed HTTP (a malformed request line, header or framing).
 */
function refusalOf(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        // Node's limit (`--max-http-header-size`; 16 KiB unless set), the URL and every header counted.
        message: `the request's URL and headers together pass the ${maxHeaderSize} bytes the server reads`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'the chunk extensions of the body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'the request did not arrive in time; the connection is closed' };
    default:
      return { status: 400, message: 'the request is not well-formed HTTP/1.1' };
  }
}

/**
 * D2 for every answer of the process, those Node's parser gives included: without a
 * `clientError` listener Node writes a bare status line (a 431 or 400 with no body). There is
 * no request and no response object then, so the answer is written to the socket, which is
 * closed once it has left: what else the client sent cannot be read as a request.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node does: answer only when no part of another answer went out on this connection.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, message } = refusalOf(err.code);
    const error = STATUS_CODES[status]!;
    const body = JSON.stringify({ statusCode: status, message, error });
    socket.end(
      `HTTP/1.1 ${status} ${error}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
      () => socket.destroy(),
    );
  });
}
