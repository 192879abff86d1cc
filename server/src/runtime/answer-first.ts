import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import { fastPath, firstProblem, outsideRange, packageVersion } from './fast-paths';

const on = fastPath({
  name: 'answer-first',
  guard: () =>
    firstProblem(
      () => outsideRange('express', packageVersion('express'), '4.17.0', '5.0.0'),
      () => {
        const app = express() as unknown as { handle?: unknown };
        return typeof app.handle === 'function' ? undefined : 'an express app has no handle method to wrap';
      },
    ),
});

/** Answers a request entirely (true), or leaves it to the app (false). */
export type FirstAnswer = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Gives `answer` every request before the app does any work: with the device on, by wrapping
 * the app's `handle`, through which both `app(req, res)` and `app.listen` pass, so Express's
 * init step and router are skipped for what `answer` serves (the shopper widget's cached read,
 * D29: `pnpm bench public-read`). Off, `answer` is the app's first middleware. Call before any
 * other `app.use`.
 */
export function answerFirst(app: Express, answer: FirstAnswer): void {
  if (!on()) {
    app.use((req, res, next) => {
      if (!answer(req, res)) next();
    });
    return;
  }
  const inner = app as unknown as { handle: (req: IncomingMessage, res: ServerResponse, next?: () => void) => void };
  const handle = inner.handle.bind(app);
  inner.handle = (req, res, next) => {
    if (!answer(req, res)) handle(req, res, next);
  };
}
