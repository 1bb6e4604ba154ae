import { z } from 'zod';
import { petStatus } from '../../../db/schema.js';
import { cursorParam, decimalUpTo, limitParam, positiveInt64 } from './common.js';

export const NAME_MAX_CHARACTERS = 255;

/**
 * No control characters (C0, DEL, C1): PostgreSQL text cannot hold NUL, and invisible controls
 * in a name are a spoofing aid rather than data. At least one non-whitespace character.
 */
const NAME_PATTERN =
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  /^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$/;

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

export const MAX_IDS_PER_FILTER = 100;
const ID_LIST = /^\d+(?:,\d+)*$/;
/** The list and its bounds in one pattern, for the document; the refinements give the messages. */
const ID = decimalUpTo(Number.MAX_SAFE_INTEGER);
const BOUNDED_ID_LIST = `^${ID}(?:,${ID}){0,${MAX_IDS_PER_FILTER - 1}}$`;

/** `7` or `7,12,40`: one query parameter, so the `next` link and the cursor carry it as sent. */
const PetIdFilterSchema = z
  .string()
  .regex(ID_LIST, 'must be pet ids separated by commas, e.g. 7,12,40')
  .refine((list) => list.split(',').length <= MAX_IDS_PER_FILTER, {
    message: `must name at most ${MAX_IDS_PER_FILTER} ids`,
  })
  .refine(
    (list) => list.split(',').every((id) => Number(id) >= 1 && Number.isSafeInteger(Number(id))),
    { message: `each id must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}` },
  )
  .meta({
    pattern: BOUNDED_ID_LIST,
    description: `Only the animals with these ids (1 to ${MAX_IDS_PER_FILTER}, comma-separated): those that exist, ascending. \`GET /pets?id={petId}\` replaces the deprecated getPet.`,
    examples: ['7,12,40'],
  })
  .optional();

export const NAME_TERM_MIN_CHARACTERS = 3;
export const NAME_TERM_MAX_CHARACTERS = 100;

/**
 * A term of fewer than three characters has no trigram, so no index can narrow it and it would
 * read every pet; a longer term than a hundred finds nothing a shorter one would not.
 * Surrounding spaces are not part of the term. Control characters never occur in a stored
 * name, and PostgreSQL text cannot hold NUL.
 */
const NameFilterSchema = z
  .string()
  .trim()
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, 'must not contain control characters')
  .refine((name) => name.isWellFormed(), 'must be valid Unicode (no lone surrogates)')
  .refine((name) => codePointLength(name) >= NAME_TERM_MIN_CHARACTERS, {
    message: `must be at least ${NAME_TERM_MIN_CHARACTERS} characters, not counting surrounding spaces`,
  })
  .refine((name) => codePointLength(name) <= NAME_TERM_MAX_CHARACTERS, {
    message: `must be at most ${NAME_TERM_MAX_CHARACTERS} characters, not counting surrounding spaces`,
  })
  .meta({
    minLength: NAME_TERM_MIN_CHARACTERS,
    maxLength: NAME_TERM_MAX_CHARACTERS,
    description: `Only animals whose name contains this text, compared case-insensitively (as PostgreSQL \`lower()\` folds case): ${NAME_TERM_MIN_CHARACTERS} to ${NAME_TERM_MAX_CHARACTERS} characters, not counting surrounding spaces, which are ignored. \`%\` and \`_\` are plain characters, not wildcards.`,
    examples: ['rex'],
  })
  .optional();

const ListPetsQuerySchema = z.strictObject({
  limit: limitParam('animals'),
  status: PetStatusSchema.optional().meta({ description: 'Only animals with this status.' }),
  id: PetIdFilterSchema,
  categoryId: positiveInt64('Only animals of this category.').optional(),
  name: NameFilterSchema,
  cursor: cursorParam('filters (`status`, `id`, `categoryId`, `name`)'),
});

/** Every parameter is optional, so a tRPC caller may send no input at all: `pets.list.query()`. */
export const ListPetsInputSchema = ListPetsQuerySchema.prefault({});

export const GetPetInputSchema = z.strictObject({
  petId: positiveInt64('Id of the animal to retrieve.'),
});

/**
 * A JSON merge patch (RFC 7396) of a pet: the fields to change, each under NewPet's rules.
 * `null` would remove a field, and no field of a pet may be removed, so it is refused like any
 * invalid value; so are `id` and unknown fields.
 */
export const UpdatePetInputSchema = z
  .strictObject({
    petId: positiveInt64('Id of the animal to change.'),
    name: PetNameSchema.optional(),
    categoryId: positiveInt64('Id of the category the animal belongs to.').optional(),
    status: PetStatusSchema.optional(),
  })
  .refine(
    (patch) =>
      patch.name !== undefined || patch.categoryId !== undefined || patch.status !== undefined,
    { message: 'A patch must change at least one of name, categoryId, status' },
  )
  .meta({
    id: 'PetPatch',
    // The refinement above, as the document can say it: the body names at least one field.
    minProperties: 1,
    description:
      'The fields of an animal to change (RFC 7396 merge patch): at least one of `name`, `categoryId`, `status`. Unknown fields, `id` and `null` are rejected.',
  });

export const DeletePetInputSchema = z.strictObject({
  petId: positiveInt64('Id of the animal to delete.'),
});

export type Pet = z.infer<typeof PetSchema>;
export type ListPetsInput = z.infer<typeof ListPetsInputSchema>;
