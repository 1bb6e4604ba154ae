import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { PetStatus } from '../../db/queries/pets.js';
import { pets } from '../../db/schema.js';
import type { NewPetSchema } from '../../server/domain/schemas/pet.js';
import type { Principal } from '../../server/domain/auth/authenticator.js';

type NewPet = z.input<typeof NewPetSchema>;

let sequence = 0;

/** The callers router tests act as, one per key scope. */
export const writer: Principal = { keyId: 'writer', scope: 'write' };
export const reader: Principal = { keyId: 'reader', scope: 'read' };

export function newPet(overrides: Partial<NewPet> = {}): NewPet {
  sequence += 1;
  return { name: `Pet ${sequence}`, categoryId: 1 + (sequence % 5), ...overrides };
}

/**
 * Many pets in a few multi-row INSERTs, for tests that need volume rather than the API path.
 * Returns the new ids in ascending order.
 */
export async function insertManyPets(
  db: Database,
  count: number,
  statusOf: (index: number) => PetStatus = () => 'available',
): Promise<number[]> {
  const ids: number[] = [];
  const chunk = 1_000;
  for (let start = 0; start < count; start += chunk) {
    const rows = Array.from({ length: Math.min(chunk, count - start) }, (_, offset) => {
      const index = start + offset;
      return { name: `Bulk ${index}`, categoryId: 1 + (index % 5), status: statusOf(index) };
    });
    const inserted = await db.insert(pets).values(rows).returning({ id: pets.id });
    ids.push(...inserted.map((row) => row.id));
  }
  return ids.sort((a, b) => a - b);
}
