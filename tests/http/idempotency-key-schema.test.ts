import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

/** CI runs a bounded number; FAST_CHECK_RUNS=2000 runs longer locally. */
const RUNS = Number(process.env.FAST_CHECK_RUNS ?? 40);
const TIMEOUT_MS = 60_000 + RUNS * 300;

const server = useTestServer();

interface HeaderSchema {
  pattern: string;
  minLength: number;
  maxLength: number;
}

/** The Idempotency-Key schema as the served document states it, which clients generate from. */
function documentedSchema(): HeaderSchema {
  const paths = server.conformance.document.paths as Record<
    string,
    Record<string, { parameters?: { in: string; name: string; schema: HeaderSchema }[] }>
  >;
  const parameter = paths['/pets']?.post?.parameters?.find(
    (candidate) => candidate.in === 'header' && candidate.name === 'Idempotency-Key',
  );
  if (!parameter) throw new Error('the document has no Idempotency-Key on createPet');
  return parameter.schema;
}

/** The key a header value names: a quoted string stands for its unescaped content. */
function keyOf(value: string): string {
  return value.startsWith('"') ? value.slice(1, -1).replace(/\\(["\\])/g, '$1') : value;
}

/**
 * The other spelling of the same key, when it has one the document allows: the key `" "` has
 * none, as its bare spelling reads as the quoted key ` `.
 */
function otherForm(value: string, schema: HeaderSchema): string | undefined {
  const key = keyOf(value);
  const other = value.startsWith('"') ? key : `"${key.replace(/["\\]/g, '\\$&')}"`;
  const pattern = new RegExp(schema.pattern);
  const allowed = other.length <= schema.maxLength && pattern.test(other);
  return allowed && keyOf(other) === key ? other : undefined;
}

/** One body per key, so a key met twice is a replay, never a 422. */
function petFor(key: string) {
  const digest = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return { name: `idempotency ${digest}`, categoryId: 1 };
}

function create(value: string) {
  return server.api('POST', '/v1/pets', {
    body: petFor(keyOf(value)),
    headers: { 'idempotency-key': value },
  });
}

describe('the documented Idempotency-Key schema and the service agree', () => {
  it('documents the length the service accepts', () => {
    expect(documentedSchema()).toMatchObject({ minLength: 1, maxLength: 255 });
  });

  it(
    'accepts every value the documented schema allows, and takes its other form as the same key',
    async () => {
      const schema = documentedSchema();
      const value = fc
        .stringMatching(new RegExp(schema.pattern))
        .filter((text) => text.length >= schema.minLength && text.length <= schema.maxLength);
      const boundary = fc.constantFrom(
        'k'.repeat(schema.maxLength),
        `"${'q'.repeat(schema.maxLength - 2)}"`,
        '"\\"\\\\"',
        '"\\" \\""',
        '~',
        'a b',
      );
      await fc.assert(
        fc.asyncProperty(fc.oneof(value, boundary), async (header) => {
          const first = await create(header);
          expect(first.status, header).toBe(201);
          const other = otherForm(header, schema);
          if (other === undefined) return;
          const again = await create(other);
          expect(again.status, other).toBe(201);
          expect(again.headers.get('idempotent-replayed'), other).toBe('true');
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    },
    TIMEOUT_MS,
  );

  it('refuses what the schema refuses at its length bound', async () => {
    const schema = documentedSchema();
    const response = await create('k'.repeat(schema.maxLength + 1));
    expect(response.status).toBe(400);
  });
});
