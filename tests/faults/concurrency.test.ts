import { describe, expect, it } from 'vitest';
import { runBounded } from '../helpers/load.js';
import { useTestServer } from '../helpers/server.js';

const CREATES = 1_000;
const CLIENTS = 50;

const server = useTestServer();

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

describe('concurrent creates', () => {
  it(`gives ${CREATES} creates from ${CLIENTS} parallel clients ${CREATES} distinct ids, all readable`, async () => {
    const created = await runBounded(CREATES, CLIENTS, async (index) => {
      const response = await server.api<Pet>('POST', '/v1/pets', {
        body: { name: `concurrent ${index}`, categoryId: 1 + (index % 7) },
      });
      expect(response.status).toBe(201);
      return response.body;
    });
    expect(new Set(created.map((pet) => pet.id)).size).toBe(CREATES);

    const mismatched = await runBounded(CREATES, CLIENTS, async (index) => {
      const pet = created[index] as Pet;
      const response = await server.api<Pet>('GET', `/v1/pets/${pet.id}`);
      return response.status === 200 && JSON.stringify(response.body) === JSON.stringify(pet)
        ? undefined
        : pet;
    });
    expect(mismatched.filter(Boolean)).toEqual([]);
  }, 120_000);
});
