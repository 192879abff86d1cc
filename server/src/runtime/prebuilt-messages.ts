import { IncomingMessage, type ServerOptions, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Express } from 'express';
import { fastPath, firstProblem, outsideRange, packageVersion } from './fast-paths';

/** In-object fields reserved for Node's own (below): above the 26/40 of Node 20-22 and 30/45 of Node 24-26. */
const REQUEST_FIELDS = 32;
const RESPONSE_FIELDS = 48;

const on = fastPath({
  name: 'prebuilt-messages',
  guard: () =>
    firstProblem(
      () => outsideRange('Node.js', process.versions.node, '20.0.0', '27.0.0'),
      () => outsideRange('express', packageVersion('express'), '4.17.0', '5.0.0'),
      () => {
        // What Node assigns in its constructors must fit in the fields reserved for it.
        const req = new IncomingMessage(new Socket());
        const res = new ServerResponse(req);
        const [reqFields, resFields] = [Reflect.ownKeys(req).length, Reflect.ownKeys(res).length];
        if (reqFields > REQUEST_FIELDS || resFields > RESPONSE_FIELDS) {
          return `Node's request and response have ${reqFields} and ${resFields} fields, more than the ${REQUEST_FIELDS} and ${RESPONSE_FIELDS} reserved`;
        }
        return undefined;
      },
    ),
});

/** What an HTTP server is built with to make its requests and responses an app's own. */
export interface PrebuiltMessages {
  options: Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'>;
  /** Gives the requests and responses made from now on the app's prototypes. */
  adopt(app: Express): void;
}

/**
 * Request and response constructors that build their objects with an Express app's own
 * prototypes (`app.request`, `app.response`), through Node's `IncomingMessage` and
 * `ServerResponse` server options; undefined when the device is off.
 *
 * Express otherwise gives every request and response its prototype after the fact
 * (`Object.setPrototypeOf` in its init step): V8 then drops the objects' shapes, and every
 * property read on them afterwards, Node's own writes of the response included, takes the
 * slow path. Built with the right prototype, that step has nothing to change.
 *
 * Plain constructors that call Node's on the new object, as Node's own subclasses do. Not
 * `class … extends`: building through a derived constructor measured a third slower on a
 * cached read. V8 sizes an object's in-object fields from the `this.… =` assignments in its
 * constructor's source; Node's fields are assigned in Node's constructors, so the never-run
 * assignments below only reserve room for them. Without it a response's fields overflow to a
 * dictionary, and a cached read ran a quarter slower.
 */
export function prebuiltMessages(): PrebuiltMessages | undefined {
  if (!on()) return undefined;
  function AppRequest(this: Record<string, unknown>, socket: unknown) {
    (IncomingMessage as unknown as (...args: unknown[]) => void).call(this, socket);
    // biome-ignore format: one reserved field per name, kept compact
    if (socket === RESERVE)
      this.r0 = this.r1 = this.r2 = this.r3 = this.r4 = this.r5 = this.r6 = this.r7 =
      this.r8 = this.r9 = this.r10 = this.r11 = this.r12 = this.r13 = this.r14 = this.r15 =
      this.r16 = this.r17 = this.r18 = this.r19 = this.r20 = this.r21 = this.r22 = this.r23 =
      this.r24 = this.r25 = this.r26 = this.r27 = this.r28 = this.r29 = this.r30 = this.r31 =
        undefined;
  }
  function AppResponse(this: Record<string, unknown>, req: unknown, options: unknown) {
    (ServerResponse as unknown as (...args: unknown[]) => void).call(this, req, options);
    // biome-ignore format: one reserved field per name, kept compact
    if (req === RESERVE)
      this.w0 = this.w1 = this.w2 = this.w3 = this.w4 = this.w5 = this.w6 = this.w7 =
      this.w8 = this.w9 = this.w10 = this.w11 = this.w12 = this.w13 = this.w14 = this.w15 =
      this.w16 = this.w17 = this.w18 = this.w19 = this.w20 = this.w21 = this.w22 = this.w23 =
      this.w24 = this.w25 = this.w26 = this.w27 = this.w28 = this.w29 = this.w30 = this.w31 =
      this.w32 = this.w33 = this.w34 = this.w35 = this.w36 = this.w37 = this.w38 = this.w39 =
      this.w40 = this.w41 = this.w42 = this.w43 = this.w44 = this.w45 = this.w46 = this.w47 =
        undefined;
  }
  // Until an app is adopted, Node's own prototypes.
  AppRequest.prototype = IncomingMessage.prototype;
  AppResponse.prototype = ServerResponse.prototype;
  return {
    options: {
      IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof ServerResponse,
    },
    adopt(app) {
      AppRequest.prototype = app.request;
      AppResponse.prototype = app.response;
    },
  };
}

/** Never passed: the branches that test for it only reserve room (above). */
const RESERVE = Symbol('never passed');
