import { afterAll, beforeAll } from 'vitest';
import { insertPets } from '../../db/queries/pets.js';
import { ServiceMetrics } from '../../server/support/service-metrics.js';
import { createChangeNotifier, type ChangeNotifier } from '../../server/domain/events/notifier.js';
import { EventStreams } from '../../server/domain/events/streams.js';
import { createLogger } from '../../server/support/logger.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface EventStreamsUnderTest {
  streams: EventStreams;
  /** Creates `count` pets in one statement, so their events reach the feed in one batch. */
  createPets: (count: number) => Promise<number[]>;
}

/**
 * The process's event streams on a database of the file's own, without a server: a consumer
 * is the iterator itself. Set up before the file's tests, closed after them; `streams` is set
 * once beforeAll ran.
 */
export function useEventStreams(options: {
  maxQueued: number;
  maxLagMs: number;
}): EventStreamsUnderTest {
  let database: TestDatabase;
  let notifier: ChangeNotifier;
  const underTest = {
    createPets: async (count: number) => {
      const created = await insertPets(
        database.handle.db,
        Array.from({ length: count }, (_, i) => ({
          name: `Streamed ${i}`,
          categoryId: 1,
          status: 'available' as const,
        })),
      );
      notifier.changed();
      return created.map((pet) => pet.id);
    },
  } as EventStreamsUnderTest;
  beforeAll(async () => {
    database = await createTestDatabase();
    const logger = createLogger('silent');
    notifier = createChangeNotifier(database.handle, logger);
    underTest.streams = new EventStreams({
      database: database.handle,
      logger,
      perKeyLimit: 10,
      metrics: new ServiceMetrics(1),
      ...options,
    });
  });
  afterAll(async () => {
    notifier.stop();
    await underTest.streams.close();
    await database.destroy();
  });
  return underTest;
}
