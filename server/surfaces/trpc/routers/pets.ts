import { deletePet, updatePet } from '../../../operations/pet-changes.js';
import { createPet, getPet, listPetPage, listPets } from '../../../operations/pets.js';
import { router } from '../init.js';
import { proceduresOf } from '../procedures.js';

/** The pet operations under their tRPC names (`pets.list`, ...). */
export const petOperations = {
  list: listPets,
  listPage: listPetPage,
  create: createPet,
  get: getPet,
  update: updatePet,
  delete: deletePet,
};

export const petsRouter = router(proceduresOf(petOperations));
