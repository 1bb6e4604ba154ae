import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { DATABASE_DEADLINE_MS } from '../../db/deadline.js';
import { heldPost } from '../helpers/http.js';
import { newPet } from '../helpers/factories.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const server = useTestServer();

/**
 * The database budget covers the key lookup and the operation, never the time a client takes
 * to upload its body: a body that arrives after the budget would have run out is served
 * normally, on either surface.
 */
describe('a create whose body arrives slowly', () => {
  it('is served on /trpc as on /v1, however long the upload took', async () => {
    const headers = { authorization: `Bearer ${TEST_KEY}` };
    const uploads = {
      rest: heldPost(server.origin, '/v1/pets', headers, JSON.stringify(newPet())),
      trpc: heldPost(server.origin, '/trpc/pets.create', headers, JSON.stringify(newPet())),
    };
    await Promise.all([uploads.rest.accepted, uploads.trpc.accepted]);
    // The point of the test: the upload outlasts the database deadline.
    await delay(DATABASE_DEADLINE_MS + 600);
    uploads.rest.release();
    uploads.trpc.release();
    const [rest, trpc] = await Promise.all([uploads.rest.response, uploads.trpc.response]);
    expect(rest.status).toBe(201);
    expect(trpc.status).toBe(200);
    expect(JSON.parse(trpc.body)).toMatchObject({ result: { data: { status: 'available' } } });
  });
});
