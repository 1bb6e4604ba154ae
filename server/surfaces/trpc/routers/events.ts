import { createStreamTicket, streamEvents } from '../../../operations/events.js';
import { router } from '../init.js';
import { proceduresOf } from '../procedures.js';

/**
 * The events' operations under their tRPC names; experimental. `events.onChange` is every
 * change, over server-sent events; `events.ticket` opens it from an EventSource.
 */
export const eventOperations = {
  ticket: createStreamTicket,
  onChange: streamEvents,
};

export const eventsRouter = router(proceduresOf(eventOperations));
