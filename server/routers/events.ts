import { streamEvents } from '../operations/events.js';
import { router } from '../trpc/init.js';
import { subscriptionProcedure } from '../trpc/procedures.js';

/** `events.onChange`: every change, over server-sent events (experimental). */
export const eventsRouter = router({
  onChange: subscriptionProcedure(streamEvents),
});
