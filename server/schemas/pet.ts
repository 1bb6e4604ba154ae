import { z } from 'zod';
import { petStatus } from '../../db/schema.js';

export const NAME_MAX_CHARACTERS = 255;
/** Cursors this service issues are under 100 characters; anything far longer is not one. */
const CURSOR_MAX_CHARACTERS = 256;

/**
 * No control characters (C0, DEL, C1): PostgreSQL text cannot hold NUL, and invisible controls
 * in a name are a spoofing aid rather than data. At least one non-whitespace character.
 */
const NAME_PATTERN =
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  /^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$/;

const positiveInt64 = (description: string) =>
  // z.int() already stops at 2^53 - 1, the largest integer a JSON number carries exactly.
  z.int().min(1).meta({ format: 'int64', description });

export const PetStatusSchema = z
  .enum(petStatus.enumValues)
  .meta({ id: 'PetStatus', description: 'Availability status of an animal.' });

function codePointLength(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) i++;
    length++;
  }
  return length;
}

// JSON Schema counts characters as code points; so does this check, so the two agree.
export const PetNameSchema = z
  .string()
  .regex(NAME_PATTERN, 'must contain a non-whitespace character and no control characters')
  .refine((name) => name.isWellFormed(), 'must be valid Unicode (no lone surrogates)')
  .refine((name) => codePointLength(name) <= NAME_MAX_CHARACTERS, {
    message: `must be at most ${NAME_MAX_CHARACTERS} characters`,
  })
  .meta(nameDocumentation());

function nameDocumentation() {
  return {
    minLength: 1,
    maxLength: NAME_MAX_CHARACTERS,
    description: `The animal's name: 1..${NAME_MAX_CHARACTERS} characters, not only whitespace, no control characters.`,
    examples: ['Rex'],
  };
}

/**
 * A stored name passed PetNameSchema on the way in and the database's length CHECK, so the
 * response does not run the pattern and refinements again for every pet it returns; the
 * document still states the same constraints.
 */
const StoredPetNameSchema = z
  .string()
  .meta({ ...nameDocumentation(), pattern: NAME_PATTERN.source });

export const NewPetSchema = z
  .strictObject({
    name: PetNameSchema,
    categoryId: positiveInt64('Id of the category the animal belongs to.'),
    status: PetStatusSchema.default('available'),
  })
  .meta({ id: 'NewPet', description: 'An animal to add. Unknown fields are rejected.' });

export const PetSchema = z
  .object({
    id: positiveInt64('Unique identifier assigned by the service on creation.'),
    name: StoredPetNameSchema,
    categoryId: positiveInt64('Id of the category the animal belongs to.'),
    status: PetStatusSchema,
  })
  .meta({ id: 'Pet', description: 'An animal offered in the store.' });

const ListPetsQuerySchema = z.strictObject({
  limit: z
    .int()
    .min(1)
    .max(100)
    .default(20)
    .meta({ description: 'Maximum number of animals returned.' }),
  status: PetStatusSchema.optional().meta({ description: 'Only animals with this status.' }),
  // Described before .optional(): the document generator drops meta set on the wrapper.
  cursor: z
    .string()
    .min(1)
    .max(CURSOR_MAX_CHARACTERS)
    .meta({
      description:
        'Opaque position taken from the `next` link of a previous page. Valid only with the `status` it was issued for.',
    })
    .optional(),
});

/** Every parameter is optional, so a tRPC caller may send no input at all: `pets.list.query()`. */
export const ListPetsInputSchema = ListPetsQuerySchema.prefault({});

export const PetPageSchema = z.object({
  items: z.array(PetSchema),
  /** null on the last page, which is what infinite-query clients expect. */
  nextCursor: z.string().nullable(),
});

export const GetPetInputSchema = z.strictObject({
  petId: positiveInt64('Id of the animal to retrieve.'),
});

export type Pet = z.infer<typeof PetSchema>;
export type ListPetsInput = z.infer<typeof ListPetsInputSchema>;
export type PetPage = z.infer<typeof PetPageSchema>;
