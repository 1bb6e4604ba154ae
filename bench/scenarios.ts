/**
 * One request of a scenario. In `path` and `body`, `{id}` is a random pet id among the seeded
 * ones (1 to the store's size, `--pets`), `{pet}` the connection's own available pet (so
 * writers on different connections never wait on each other's row), and `{order}` the id in
 * the previous answer.
 */
export interface RequestSpec {
  path: string;
  method: 'GET' | 'POST' | 'PATCH';
  body?: string;
  /** Sent besides the key and the content type (a Petstore-Position). */
  headers?: Record<string, string>;
}

export interface Scenario {
  name: string;
  /** Each connection cycles through these in order. */
  requests: RequestSpec[];
  /** The floor scenario this one is compared with, when the floor has no such route. */
  comparedWith?: string;
  /** Runs on the service alone: the floor serves reads and creates only (floor-server.ts). */
  serviceOnly?: boolean;
}

const NEW_PET = JSON.stringify({ name: 'Bench', categoryId: 7 });
/** tRPC's query input is JSON in the URL; `{id}` is replaced per request. */
const trpcGetPath = `/trpc/pets.get?input=${encodeURIComponent('{"petId":')}{id}${encodeURIComponent('}')}`;

const restList20: Scenario = {
  name: 'REST list 20',
  requests: [{ path: '/v1/pets?limit=20', method: 'GET' }],
};
const restGet: Scenario = {
  name: 'REST get',
  requests: [{ path: '/v1/pets/{id}', method: 'GET' }],
};
const restCreate: Scenario = {
  name: 'REST create',
  requests: [{ path: '/v1/pets', method: 'POST', body: NEW_PET }],
};
const trpcList20: Scenario = {
  name: 'tRPC list 20',
  requests: [
    {
      path: `/trpc/pets.list?input=${encodeURIComponent(JSON.stringify({ limit: 20 }))}`,
      method: 'GET',
    },
  ],
  comparedWith: restList20.name,
};
const trpcGet: Scenario = {
  name: 'tRPC get',
  requests: [{ path: trpcGetPath, method: 'GET' }],
  comparedWith: restGet.name,
};
/** A pet's status back and forth: every PATCH changes the pet (a new version each time). */
const restUpdate: Scenario = {
  name: 'REST update',
  serviceOnly: true,
  requests: [
    { path: '/v1/pets/{pet}', method: 'PATCH', body: '{"status":"pending"}' },
    { path: '/v1/pets/{pet}', method: 'PATCH', body: '{"status":"available"}' },
  ],
};
/** An order placed and cancelled: the pet goes pending and back to available each cycle. */
const restPlaceOrder: Scenario = {
  name: 'REST place-order (place + cancel)',
  serviceOnly: true,
  requests: [
    { path: '/v1/store/orders', method: 'POST', body: '{"petId":{pet}}' },
    { path: '/v1/store/orders/{order}', method: 'PATCH', body: '{"status":"cancelled"}' },
  ],
};

/**
 * Finding: a rare part of a name (the trigram index), and five ids (the primary key). Both hold
 * at every `--pets` from 10,000: 'et 4242' matches 'Pet 4242' and 'Pet 42420'-'Pet 42429' and
 * so on (111 pets at 1,000,000, limit 20), and the five ids are all seeded pets.
 */
const restListByName: Scenario = {
  name: 'REST list-by-name',
  requests: [{ path: '/v1/pets?name=et%204242&limit=20', method: 'GET' }],
};
const restListByIds: Scenario = {
  name: 'REST list-by-ids',
  requests: [{ path: '/v1/pets?id=17%2C777%2C4242%2C9001%2C9999', method: 'GET' }],
};
const restInventory: Scenario = {
  name: 'REST inventory',
  requests: [{ path: '/v1/store/inventory', method: 'GET' }],
};

export const scenarios: Scenario[] = [
  restList20,
  {
    name: 'REST list 100, status filter',
    requests: [{ path: '/v1/pets?limit=100&status=available', method: 'GET' }],
  },
  restGet,
  restCreate,
  restUpdate,
  restPlaceOrder,
  restListByName,
  restListByIds,
  restInventory,
  trpcList20,
  trpcGet,
  {
    name: 'tRPC create',
    requests: [{ path: '/trpc/pets.create', method: 'POST', body: NEW_PET }],
    comparedWith: restCreate.name,
  },
];

/** The soak's mix: every connection cycles through these, both surfaces and all three kinds. */
export const soakMix: RequestSpec[] = [
  restList20,
  restGet,
  restCreate,
  trpcList20,
  trpcGet,
].flatMap((scenario) => scenario.requests);

/** Measured again against the floor with many event streams open: their ratios must hold. */
export const withStreamsOpen: Scenario[] = [restList20, restGet, restCreate];

/** What WORKERS=2 is compared on, against one worker's figure from the main rounds. */
export const workersScenario = restList20;
