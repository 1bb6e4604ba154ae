import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../../server/webhooks/storage/deliveries.js';
import { attemptDelivery, createDeliveryAgent } from '../../server/webhooks/domain/sender.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let listener: Receiver;
beforeAll(async () => {
  listener = await startReceiver();
});
afterAll(() => listener.close());

const deliveryTo = (url: string): ClaimedDelivery => ({
  id: 1,
  endpointId: 'wh_test',
  eventId: 1,
  attempts: 1,
  type: 'pet.created',
  occurredAt: new Date(),
  data: { id: 1 },
  url,
  secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  failingSince: null,
});

// Registration refuses these names already; this is the check on the address actually
// connected to, which holds when a name resolves elsewhere at delivery (DNS rebinding).
describe('the delivery agent, private addresses not allowed', () => {
  const agent = createDeliveryAgent(false);
  afterAll(() => agent.close());

  it.each(['localhost', '127.0.0.1', '[::ffff:127.0.0.1]', '2130706433'])(
    'connects to no private address: %s',
    async (host) => {
      const url = `http://${host}:${listener.port}/hook`;
      const result = await attemptDelivery(agent, deliveryTo(url), 2_000);
      expect(result.status).toBeNull();
      expect(listener.count()).toBe(0);
    },
  );

  it('connects when private addresses are allowed (the listener does count)', async () => {
    const open = createDeliveryAgent(true);
    const result = await attemptDelivery(open, deliveryTo(listener.url), 2_000);
    await open.close();
    expect(result.status).toBe(200);
    expect(listener.count()).toBe(1);
  });
});
