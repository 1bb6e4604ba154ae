import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const POSITION = 'petstore-position';

describe('Petstore-Position without read replicas', () => {
  it('is checked on the reads a replica may serve, and nothing else changes', async () => {
    const created = await server.api<{ id: number }>('POST', '/v1/pets', {
      body: { name: 'Single', categoryId: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get(POSITION)).toBeNull();
    const read = await server.api('GET', `/v1/pets/${created.body.id}`, {
      headers: { [POSITION]: '00000000016b3748' },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get(POSITION)).toBeNull();
  });

  it.each(['0/16B3748', '16B3748', '00000000016B3748', '00000000016b37480', 'latest'])(
    'refuses %j with 400 INVALID_POSITION on REST and tRPC, batches included',
    async (position) => {
      const rest = await server.api<{ code: string; status: number }>(
        'GET',
        '/v1/store/inventory',
        {
          headers: { [POSITION]: position },
        },
      );
      expect([rest.status, rest.body.code, rest.body.status]).toEqual([
        400,
        'INVALID_POSITION',
        400,
      ]);
      const input = encodeURIComponent(JSON.stringify({ 0: {}, 1: {} }));
      const batch = await server.api<{ error: { data: { code: string } } }[]>(
        'GET',
        `/trpc/pets.list,store.inventory?batch=1&input=${input}`,
        { headers: { [POSITION]: position } },
      );
      expect(batch.body.map((call) => call.error.data.code)).toEqual([
        'INVALID_POSITION',
        'INVALID_POSITION',
      ]);
    },
  );
});
