/// <reference lib="esnext.disposable" preserve="true" />
/**
 * `petstore-service/client`: what a front-end needs to call the service, typed. Only types come
 * from the server's code, so a front-end's bundle never holds any of it. The reference above
 * stays in the emitted declarations (`preserve`): @trpc/server's declarations name
 * `Disposable` and `AsyncDisposable`, which only that lib declares, so a front-end whose `lib`
 * stops at ES2022 and DOM still type-checks the entry without adding it.
 */
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './router.js';

export type { AppRouter };
/** Each procedure's input and output: `PetstoreInputs['pets']['create']`. */
export type PetstoreInputs = inferRouterInputs<AppRouter>;
export type PetstoreOutputs = inferRouterOutputs<AppRouter>;

export {
  createPetstoreTrpcClient,
  type EventSourceClass,
  type PetstoreTrpcClient,
  type PetstoreTrpcClientOptions,
} from './trpc.js';
export {
  createPetstoreRestClient,
  type PetstoreRestClient,
  type PetstoreRestClientOptions,
} from './rest.js';
export { createPositionTracker, sharedPositions, type PositionTracker } from './positions.js';
export type { components, paths } from './generated/openapi.js';
// The error class the tRPC client throws, from the same copy of @trpc/client as the factory's,
// so `instanceof` holds.
export { TRPCClientError, isTRPCClientError } from '@trpc/client';
