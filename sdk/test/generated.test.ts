import { readFileSync } from 'node:fs';
import type { Contract, ZWebhookEvent } from '@protection-service/contract';
import type { AppRoute, AppRouter } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { renderSdkTypes, SDK_TYPES_FILE } from '../../scripts/sdk-types';
import type { Client, TWebhookEvent } from '../src/index';

/**
 * The SDK's types are generated from the contract (scripts/sdk-types.ts). The file must be
 * current, and its types must mean what the contract's zod schemas mean: the type-level
 * checks below fail `pnpm typecheck` naming the route that drifted.
 */
describe('sdk/src/generated/client.ts', () => {
  it('is what the contract generates today', async () => {
    const committed = readFileSync(SDK_TYPES_FILE, 'utf8');
    expect(committed === (await renderSdkTypes()), 'run `pnpm sdk-types` and commit the result').toBe(true);
  });

  it('types every route as the contract does', () => {
    // A drift fails `pnpm typecheck` here, naming the routes: "Type '"claims.list"' is not ...".
    const drifted: never = undefined as unknown as Drift<Contract, Client>;
    expect(drifted).toBeUndefined();
    const webhookEvent: Same<TWebhookEvent, z.output<typeof ZWebhookEvent>> = true;
    expect(webhookEvent).toBe(true);
  });
});

/** Mutually assignable (optional `T` and `T | undefined` are the same here). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

type Args<F> = F extends (args: infer A) => unknown ? NonNullable<A> : never;
type Answer<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;

type Input<S> = S extends z.ZodTypeAny ? z.input<S> : never;
type Output<S> = S extends z.ZodTypeAny
  ? z.output<S>
  : // A body that is not JSON (D52's CSV): `{ contentType, body }`.
    S extends { contentType: string; body: infer B extends z.ZodTypeAny }
    ? z.output<B>
    : undefined;

/** Both `true` (an intersection would hide a failure: `true & false` is `never`). */
type And<A, B> = Same<A, true> extends true ? Same<B, true> : false;

/** Path parameters and bodies: what the server accepts. */
type RequestOk<R extends AppRoute, A> = And<
  R extends { pathParams: infer P } ? Same<Input<P>, A['params' & keyof A]> : true,
  R extends { body: infer B extends z.ZodTypeAny } ? Same<Input<B>, A['body' & keyof A]> : true
>;

/** Query parameters: what they mean (the parsed values), optional where the server allows. */
type QueryOk<R extends AppRoute, A> = R extends { query: infer Q extends z.ZodTypeAny }
  ? And<
      Same<Partial<z.output<Q>>, Partial<NonNullable<A['query' & keyof A]>>>,
      Same<RequiredKeys<z.input<Q>>, RequiredKeys<NonNullable<A['query' & keyof A]>>>
    >
  : true;
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

/** Every declared status, with the body the server answers for it, and nothing else. */
type ResponsesOk<R extends AppRoute, Res> = Same<
  { [S in keyof R['responses']]: { status: StatusNumber<S>; body: Output<R['responses'][S]> } }[keyof R['responses']],
  Res extends { status: infer S; body: infer B } ? { status: S; body: B } : never
>;

/** Some routers' status keys are strings (`'400'`). */
type StatusNumber<S> = S extends `${infer N extends number}` ? N : S;

type RouteOk<R extends AppRoute, F> = And<And<RequestOk<R, Args<F>>, QueryOk<R, Args<F>>>, ResponsesOk<R, Answer<F>>>;

/** `group.operation` of each route whose generated types differ from the contract's. */
type Drift<C extends AppRouter, T> = {
  [G in keyof C & string]: {
    [O in keyof C[G] & string]: C[G][O] extends AppRoute
      ? O extends keyof T[G & keyof T]
        ? Same<RouteOk<C[G][O], T[G & keyof T][O]>, true> extends true
          ? never
          : `${G}.${O}`
        : `${G}.${O} (missing)`
      : never;
  }[keyof C[G] & string];
}[keyof C & string];
