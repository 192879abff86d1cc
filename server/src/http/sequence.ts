import type { RequestHandler } from 'express';

/**
 * Middlewares run one after another as one Express layer: what each would cost as a layer
 * of its own (the router's matching and bookkeeping between them) is paid once. A handler
 * that answers (calls no `next`) or fails (`next(err)`) ends the sequence as it would end
 * Express's.
 */
export function sequence(handlers: readonly RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      const handler = handlers[i++];
      if (err) next(err);
      else if (!handler) next();
      else {
        try {
          handler(req, res, step);
        } catch (thrown) {
          next(thrown);
        }
      }
    };
    step();
  };
}
