/**
 * `petstore-service/client`: what a front-end needs to call the service, typed. Only types come
 * from the server's code, so a front-end's bundle never holds any of it.
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
export type { components, paths } from './generated/openapi.js';
// The error class the tRPC client throws, from the same copy of @trpc/client as the factory's,
// so `instanceof` holds.
export { TRPCClientError, isTRPCClientError } from '@trpc/client';
