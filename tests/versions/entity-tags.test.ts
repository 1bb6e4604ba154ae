import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENTITY_TAGS_PATTERN, parseEntityTags } from '../../server/domain/versions/etag.js';

/** RFC 9110 §8.8.3 etagc: visible ASCII but the quote, and obs-text, as Node decodes it. */
const etagc = fc.oneof(
  fc.integer({ min: 0x21, max: 0x7e }).filter((code) => code !== 0x22),
  fc.integer({ min: 0x80, max: 0xff }),
);
const opaque = fc
  .array(etagc, { maxLength: 12 })
  .map((codes) => `"${String.fromCharCode(...codes)}"`);
const entityTag = fc.tuple(fc.boolean(), opaque).map(([weak, tag]) => (weak ? `W/${tag}` : tag));
const ows = fc.constantFrom('', ' ', '\t', ' \t ');
/** Empty list elements a recipient must accept (RFC 9110 §5.6.1.2). */
const empties = fc.array(
  ows.map((space) => `${space},`),
  { maxLength: 2 },
);

/** A list of tags as a client may write it: any spacing, empty elements anywhere. */
const tagList = fc
  .array(fc.tuple(entityTag, ows, ows, empties), { minLength: 1, maxLength: 6 })
  .chain((items) =>
    fc.tuple(empties, ows).map(([leading, space]) => ({
      tags: items.map(([tag]) => tag),
      field:
        leading.join('') +
        space +
        items
          .map(([tag, before, after, extra], index) =>
            index === 0 ? tag : `${before},${after}${extra.join('')}${tag}`,
          )
          .join(''),
    })),
  );

describe('parseEntityTags', () => {
  it('reads back every tag of any list written by the grammar, in order', () => {
    fc.assert(
      fc.property(tagList, ({ tags, field }) => {
        expect(parseEntityTags(field)).toEqual(tags);
      }),
    );
  });

  it('reads * only when it stands alone', () => {
    expect(parseEntityTags('*')).toBe('*');
    expect(parseEntityTags('  *\t')).toBe('*');
    fc.assert(
      fc.property(tagList, fc.boolean(), ({ field }, first) => {
        expect(parseEntityTags(first ? `*, ${field}` : `${field}, *`)).toBeUndefined();
      }),
    );
  });

  it('refuses a list with anything but separators outside its tags', () => {
    const junk = fc.constantFrom('*', 'x', ';', '=', '/', 'W/', 'W/*', '"open', 'w/"a"');
    fc.assert(
      fc.property(
        fc.array(entityTag, { minLength: 1, maxLength: 4 }),
        junk,
        fc.nat(),
        fc.boolean(),
        (tags, stray, at, glued) => {
          const index = at % (tags.length + 1);
          const elements = tags.map((tag, i) => (glued && i === index ? tag + stray : tag));
          if (!glued || index === tags.length) elements.splice(index, 0, stray);
          expect(parseEntityTags(elements.join(', '))).toBeUndefined();
        },
      ),
    );
  });

  it.each([
    'nonsense*',
    'W/*',
    '"1", *',
    '"unterminated',
    '"a" "b"',
    '"a"x',
    'W/ "a"',
    '',
    ',',
    ' , ,',
    '"\u0100"',
  ])('refuses %j', (field) => {
    expect(parseEntityTags(field)).toBeUndefined();
  });
});

/** The pattern the OpenAPI document gives If-Match and If-None-Match (tools generate from it). */
describe('ENTITY_TAGS_PATTERN', () => {
  const accepted = (field: string) => ENTITY_TAGS_PATTERN.test(field);
  const parsed = (field: string) => parseEntityTags(field) !== undefined;

  it('matches every list and * that parseEntityTags reads', () => {
    fc.assert(fc.property(tagList, ({ field }) => accepted(field)));
    expect(accepted(' * ')).toBe(true);
  });

  it("agrees with parseEntityTags on any text made of the grammar's pieces", () => {
    const piece = fc.oneof(
      entityTag,
      fc.constantFrom('*', ',', ' ', '\t', 'x', 'W/', '"', '\u0100'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const field = pieces.join('');
        expect(accepted(field)).toBe(parsed(field));
      }),
      { numRuns: 2_000 },
    );
  });
});
