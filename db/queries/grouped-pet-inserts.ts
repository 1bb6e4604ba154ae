import type DataLoader from 'dataloader';
import { loaderInTurns } from '../batch-turns.js';
import type { Database } from '../database.js';
import { isRefusedData, toError } from '../errors.js';
import { insertPet, insertPets, type NewPetRow, type VersionedPetRow } from './pets.js';

/** Bounds one statement's size and how long its first member waits for its last. */
const MAX_GROUP_SIZE = 100;
/**
 * One group commits while the next already waits for the lock in the database, so the round
 * trip between them is not spent idle.
 */
const GROUPS_IN_FLIGHT = 2;

/**
 * Group commit for creates. Inserts are serialised until commit (insertPet says why), so one
 * at a time would pay a commit each; instead the creates that arrive while groups are being
 * written wait and go together in the next statement. An idle server writes a lone create at
 * once. A group the server refuses is retried one by one, so a bad row fails only its own
 * request; any other failure (connection lost, deadline) fails the group, because retrying
 * could write twice what may already have committed.
 */
function createGroupedInserter(db: Database) {
  const writeGroup = async (group: readonly NewPetRow[]): Promise<(VersionedPetRow | Error)[]> => {
    try {
      return await insertPets(db, group);
    } catch (error) {
      if (group.length === 1 || !isRefusedData(error)) throw error;
      const settled = await Promise.allSettled(group.map((pet) => insertPet(db, pet)));
      return settled.map((result) =>
        result.status === 'fulfilled' ? result.value : toError(result.reason),
      );
    }
  };
  return loaderInTurns<NewPetRow, VersionedPetRow>(writeGroup, {
    inFlight: GROUPS_IN_FLIGHT,
    maxBatchSize: MAX_GROUP_SIZE,
  });
}

const inserters = new WeakMap<Database, DataLoader<NewPetRow, VersionedPetRow>>();

/** insertPet for a request of its own (not inside a caller's transaction), grouped with others. */
export function insertPetGrouped(db: Database, pet: NewPetRow): Promise<VersionedPetRow> {
  let inserter = inserters.get(db);
  if (!inserter) {
    inserter = createGroupedInserter(db);
    inserters.set(db, inserter);
  }
  return inserter.load(pet);
}
