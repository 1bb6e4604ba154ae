import type { z } from 'zod';
import type { NewPetSchema } from '../../server/schemas/pet.js';

type NewPet = z.input<typeof NewPetSchema>;

let sequence = 0;

export function newPet(overrides: Partial<NewPet> = {}): NewPet {
  sequence += 1;
  return { name: `Pet ${sequence}`, categoryId: 1 + (sequence % 5), ...overrides };
}
