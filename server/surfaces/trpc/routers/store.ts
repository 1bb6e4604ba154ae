import { getInventory } from '../../../operations/store.js';
import { router } from '../init.js';
import { proceduresOf } from '../procedures.js';

/** The store as a whole under its tRPC names (`store.inventory`); beta. */
export const storeOperations = {
  inventory: getInventory,
};

export const storeRouter = router(proceduresOf(storeOperations));
