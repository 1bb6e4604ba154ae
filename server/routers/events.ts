import { createStreamTicket, streamEvents } from '../operations/events.js';
import { router } from '../trpc/init.js';
import { proceduresOf, subscriptionProcedure } from '../trpc/procedures.js';

/** The events' operations under their tRPC names (`events.ticket`); experimental. */
export const eventOperations = {
  ticket: createStreamTicket,
};

/** `events.onChange`: every change, over server-sent events; `events.ticket` for EventSource. */
export const eventsRouter = router({
  ...proceduresOf(eventOperations),
  onChange: subscriptionProcedure(streamEvents),
});
