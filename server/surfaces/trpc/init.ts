import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Context } from '../../operations/context.js';
import { trpcErrorShape } from './errors.js';

export type Meta = OpenApiMeta;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // Never put stack traces in responses.
    isDev: false,
    // Subscriptions stream as server-sent events: a ping at least every 15 s keeps idle
    // connections open through proxies, and a client that hears nothing for longer reconnects.
    sse: {
      ping: { enabled: true, intervalMs: 15_000 },
      client: { reconnectAfterInactivityMs: 40_000 },
    },
    errorFormatter: ({ error, path }) => trpcErrorShape(error, path),
  });

export const router = t.router;
export const procedure = t.procedure;
export const middleware = t.middleware;
export const createCallerFactory = t.createCallerFactory;
export const mergeRouters = t.mergeRouters;
