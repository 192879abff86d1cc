import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { fastPath } from './fast-paths';

const on = fastPath({
  name: 'in-flight-answer',
  guard: () => {
    const socket = new Socket();
    const res = new ServerResponse(new IncomingMessage(socket));
    res.assignSocket(socket);
    const found = (socket as { _httpMessage?: unknown })._httpMessage === res;
    res.detachSocket(socket);
    return found ? undefined : "Node's socket has no _httpMessage naming the answer it carries";
  },
});

/**
 * The answer a connection is carrying, read from Node's own field of the socket
 * (`_httpMessage`, undocumented); undefined when the device is off. Draining (D46) tells such
 * an answer to close its connection as it ends, instead of waiting for the connection to idle.
 */
export function answerInFlight(socket: Socket): ServerResponse | undefined {
  return on() ? (socket as { _httpMessage?: ServerResponse })._httpMessage : undefined;
}
