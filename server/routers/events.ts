import { createStreamTicket, streamEvents } from '../operations/events.js';
import { router } from '../trpc/init.js';
import { proceduresOf, subscriptionProcedure } from '../trpc/procedures.js';

/** The events' operations under their tRPC names (`events.ticket`); experimental. */
export const eventOperations = {
  ticket: createStreamTicket,
};

const subscriptions = { onChange: subscriptionProcedure(streamEvents) };

/** The subscriptions under their tRPC paths; they run in tRPC's adapter, not as operations. */
export const eventSubscriptionPaths = Object.keys(subscriptions).map((name) => `events.${name}`);

/** `events.onChange`: every change, over server-sent events; `events.ticket` for EventSource. */
export const eventsRouter = router({
  ...proceduresOf(eventOperations),
  ...subscriptions,
});
