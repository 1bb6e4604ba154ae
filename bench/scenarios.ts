import { BENCH_PETS } from './seed.js';

export interface Scenario {
  name: string;
  path: string;
  method: 'GET' | 'POST';
  body?: string;
  randomIdUpTo?: number;
  /** The floor scenario this one is compared with, when the floor has no such route. */
  comparedWith?: string;
}

const NEW_PET = JSON.stringify({ name: 'Bench', categoryId: 7 });
/** tRPC's query input is JSON in the URL; `{id}` is replaced per request. */
const trpcGetPath = `/trpc/pets.get?input=${encodeURIComponent('{"petId":')}{id}${encodeURIComponent('}')}`;

export const scenarios: Scenario[] = [
  { name: 'REST list 20', path: '/v1/pets?limit=20', method: 'GET' },
  {
    name: 'REST list 100, status filter',
    path: '/v1/pets?limit=100&status=available',
    method: 'GET',
  },
  { name: 'REST get', path: '/v1/pets/{id}', method: 'GET', randomIdUpTo: BENCH_PETS },
  { name: 'REST create', path: '/v1/pets', method: 'POST', body: NEW_PET },
  {
    name: 'tRPC list 20',
    path: `/trpc/pets.list?input=${encodeURIComponent(JSON.stringify({ limit: 20 }))}`,
    method: 'GET',
    comparedWith: 'REST list 20',
  },
  {
    name: 'tRPC get',
    path: trpcGetPath,
    method: 'GET',
    randomIdUpTo: BENCH_PETS,
    comparedWith: 'REST get',
  },
  {
    name: 'tRPC create',
    path: '/trpc/pets.create',
    method: 'POST',
    body: NEW_PET,
    comparedWith: 'REST create',
  },
];

/** The soak's mix: every connection cycles through these, one of each surface and kind. */
export const soakMix: Scenario[] = [
  scenarios[0],
  scenarios[2],
  scenarios[3],
  scenarios[4],
  scenarios[5],
].filter((scenario): scenario is Scenario => scenario !== undefined);
