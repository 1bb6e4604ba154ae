import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

/** Names an ordinary object already has: a plain record would drop or mistake them. */
const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'prototype',
];

describe('query parameters named like Object.prototype keys', () => {
  it.each(PROTOTYPE_NAMES)('answers GET /v1/pets?%s=1 with 400 naming it', async (name) => {
    const response = await server.api<{ issues: { path: string }[] }>(
      'GET',
      `/v1/pets?${name}=1&limit=1`,
    );
    expect(response.status).toBe(400);
    expect(response.body.issues.map((issue) => issue.path)).toEqual([name]);
  });

  it.each(PROTOTYPE_NAMES)('answers GET /v1/pets/1?%s=1 with 400 too', async (name) => {
    const response = await server.api('GET', `/v1/pets/1?${name}=1`);
    expect(response.status).toBe(400);
  });

  it.each(PROTOTYPE_NAMES)(
    'answers POST /v1/pets?%s=1 with 400, creating nothing',
    async (name) => {
      const response = await server.api<{ issues: { path: string }[] }>(
        'POST',
        `/v1/pets?${name}=1`,
        { body: { name: `proto ${name}`, categoryId: 1 } },
      );
      expect(response.status).toBe(400);
      expect(response.body.issues.map((issue) => issue.path)).toEqual([name]);
    },
  );

  it('answers __proto__ given twice, or with a known parameter, with 400', async () => {
    for (const query of ['__proto__=1&__proto__=2', 'limit=1&__proto__[limit]=500', '__proto__=']) {
      expect((await server.api('GET', `/v1/pets?${query}`)).status, query).toBe(400);
    }
  });
});
