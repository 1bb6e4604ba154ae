import {
  createTRPCClient,
  httpBatchLink,
  httpSubscriptionLink,
  splitLink,
  type Operation,
  type TRPCClient,
} from '@trpc/client';
import type { AppRouter } from './router.js';
import { authHeaders } from './auth.js';
import { POSITION_HEADER, sharedPositions, type PositionTracker } from './positions.js';

/**
 * Any EventSource class tRPC accepts: the browser's, or a ponyfill such as the `eventsource`
 * package's. Taken from tRPC's own signature, which it exports under no stable name.
 */
export type EventSourceClass = NonNullable<
  Parameters<typeof httpSubscriptionLink>[0]['EventSource']
>;

export interface PetstoreTrpcClientOptions<TEventSource extends EventSourceClass> {
  /** The service's tRPC address, such as `http://127.0.0.1:3000/trpc`. */
  url: string;
  /**
   * Sent as `Authorization: Bearer <apiKey>` on queries and mutations, and handed to
   * `subscriptions.eventSourceOptions` for subscriptions. Leave it out when a proxy in front of
   * the service adds the header.
   */
  apiKey?: string;
  /** Further headers for queries and mutations. */
  headers?: Record<string, string>;
  /** The `fetch` for queries and mutations (default: the global one). */
  fetch?: typeof fetch;
  /**
   * The highest `Petstore-Position` seen is sent with every query and mutation, so reads see
   * the writes of this client and of every other on the same default (docs/replicas.md):
   * `sharedPositions` unless given a tracker of its own, or `false` to send none.
   */
  positions?: PositionTracker | false;
  /**
   * At most this many calls in one request. The service refuses a batch over its
   * TRPC_MAX_BATCH (default 20), so keep this at or under the deployment's setting.
   */
  maxBatchCalls?: number;
  /**
   * Subscriptions travel over Server-Sent Events, and the EventSource API has no way to set a
   * header: how the API key reaches the service depends on the EventSource used
   * (docs/clients.md shows the usual ones).
   */
  subscriptions?: {
    /** The EventSource class to use; default: the runtime's global one. */
    EventSource?: TEventSource;
    /**
     * The EventSource's options for one subscription, given the headers queries carry
     * (the API key among them).
     */
    eventSourceOptions?: (call: {
      op: Operation;
      headers: Record<string, string>;
    }) => ConstructorParameters<TEventSource>[1] | Promise<ConstructorParameters<TEventSource>[1]>;
  };
}

export type PetstoreTrpcClient = TRPCClient<AppRouter>;

/** The service answers 431 past 16 KiB of request line and headers; a long batch is split. */
const MAX_URL_LENGTH = 8 * 1024;
const DEFAULT_MAX_BATCH_CALLS = 20;

/**
 * A typed tRPC client for the service: queries and mutations batched over HTTP,
 * subscriptions over Server-Sent Events.
 */
export function createPetstoreTrpcClient<TEventSource extends EventSourceClass = EventSourceClass>(
  options: PetstoreTrpcClientOptions<TEventSource>,
): PetstoreTrpcClient {
  const headers = { ...options.headers, ...authHeaders(options.apiKey) };
  const { EventSource, eventSourceOptions } = options.subscriptions ?? {};
  const positions = options.positions ?? sharedPositions;
  // Looked up at each call, and called on the global object, as tRPC itself does.
  const send: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({
          url: options.url,
          ...(EventSource ? { EventSource } : {}),
          ...(eventSourceOptions
            ? { eventSourceOptions: ({ op }) => eventSourceOptions({ op, headers }) }
            : {}),
        }),
        false: httpBatchLink({
          url: options.url,
          headers: () =>
            positions && positions.latest !== undefined
              ? { ...headers, [POSITION_HEADER]: positions.latest }
              : headers,
          maxItems: options.maxBatchCalls ?? DEFAULT_MAX_BATCH_CALLS,
          maxURLLength: MAX_URL_LENGTH,
          fetch: async (url: string | URL | Request, init?: RequestInit) => {
            const response = await send(url, init);
            if (positions) positions.observe(response.headers.get(POSITION_HEADER));
            return response;
          },
        }),
      }),
    ],
  });
}
