import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GetPetInputSchema } from '../../server/domain/schemas/pet.js';
import { validate } from '../../server/domain/schemas/validate.js';

// V8's own test of an object's layout: false for an object in dictionary mode, the state whose
// per-object map keeps a failed parse's garbage through scavenges.
setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the natives syntax compiles only at run time
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (
  o: object,
) => boolean;

describe('validate', () => {
  it('answers the parsed value of valid input', () => {
    expect(validate(GetPetInputSchema, { petId: 7 })).toEqual({
      success: true,
      data: { petId: 7 },
    });
  });

  it("answers zod's error for invalid input", () => {
    const result = validate(GetPetInputSchema, { petId: 'x' });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error).toBeInstanceOf(z.ZodError);
    expect(result.error.issues[0]?.path).toEqual(['petId']);
  });

  it('answers a failure with an ordinary layout, which scavenges free', () => {
    const failures = [1, 2, 3].map((n) => validate(GetPetInputSchema, { petId: `x${n}` }));
    expect(failures.map(hasFastProperties)).toEqual([true, true, true]);
  });
});
