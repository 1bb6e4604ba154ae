import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamTickets } from '../../db/schema.js';
import { StreamTickets } from '../../server/domain/events/tickets.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * Stream tickets in the database: each StreamTickets stands for one process, as two processes
 * or instances on one database are, so a ticket issued by one is redeemed by another, once.
 */
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(() => database.destroy());

describe('StreamTickets', () => {
  it('redeems a ticket issued by another process exactly once, however many try at once', async () => {
    const [issuer, redeemers] = [
      new StreamTickets(database.handle.db),
      Array.from({ length: 8 }, () => new StreamTickets(database.handle.db)),
    ];
    const { ticket } = await issuer.issue('k1');
    const results = await Promise.all(redeemers.map((process) => process.redeem(ticket)));
    expect(results.filter((keyId) => keyId !== undefined)).toEqual(['k1']);
    expect(await issuer.redeem(ticket)).toBeUndefined();
  });

  it('keeps nothing of a ticket once it is redeemed', async () => {
    const tickets = new StreamTickets(database.handle.db);
    const { ticket } = await tickets.issue('k4');
    const held = () =>
      database.handle.db.select().from(streamTickets).where(eq(streamTickets.keyId, 'k4'));
    expect(await held()).toHaveLength(1);
    expect(await tickets.redeem(ticket)).toBe('k4');
    expect(await held()).toEqual([]);
  });

  it('issues a different ticket every time, each standing for its own key', async () => {
    const tickets = new StreamTickets(database.handle.db);
    const [a, b] = [await tickets.issue('k2'), await tickets.issue('k3')];
    expect(a.ticket).not.toBe(b.ticket);
    expect(await tickets.redeem(b.ticket)).toBe('k3');
    expect(await tickets.redeem(a.ticket)).toBe('k2');
  });
});
