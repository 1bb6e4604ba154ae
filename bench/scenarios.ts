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

const restList20: Scenario = { name: 'REST list 20', path: '/v1/pets?limit=20', method: 'GET' };
const restGet: Scenario = {
  name: 'REST get',
  path: '/v1/pets/{id}',
  method: 'GET',
  randomIdUpTo: BENCH_PETS,
};
const restCreate: Scenario = {
  name: 'REST create',
  path: '/v1/pets',
  method: 'POST',
  body: NEW_PET,
};
const trpcList20: Scenario = {
  name: 'tRPC list 20',
  path: `/trpc/pets.list?input=${encodeURIComponent(JSON.stringify({ limit: 20 }))}`,
  method: 'GET',
  comparedWith: restList20.name,
};
const trpcGet: Scenario = {
  name: 'tRPC get',
  path: trpcGetPath,
  method: 'GET',
  randomIdUpTo: BENCH_PETS,
  comparedWith: restGet.name,
};

export const scenarios: Scenario[] = [
  restList20,
  {
    name: 'REST list 100, status filter',
    path: '/v1/pets?limit=100&status=available',
    method: 'GET',
  },
  restGet,
  restCreate,
  trpcList20,
  trpcGet,
  {
    name: 'tRPC create',
    path: '/trpc/pets.create',
    method: 'POST',
    body: NEW_PET,
    comparedWith: restCreate.name,
  },
];

/** The soak's mix: every connection cycles through these, both surfaces and all three kinds. */
export const soakMix: Scenario[] = [restList20, restGet, restCreate, trpcList20, trpcGet];

/** What WORKERS=2 is compared on, against one worker's figure from the main rounds. */
export const workersScenario = restList20;
