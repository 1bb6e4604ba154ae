const KEY = 'bench-key';
const auth = { authorization: `Bearer ${KEY}` };
/** Timed requests per operation, after 20 that warm up. */
const REQUESTS = 200;
const WARM_UP = 20;

/** The key every service of the embedded phase is started with. */
export const BENCH_KEY = KEY;

export interface Op {
  name: string;
  request: (origin: string) => Promise<Response>;
}

export const ops = (pets: number): Op[] => [
  {
    name: 'listPets first page',
    request: (o) => fetch(`${o}/v1/pets?limit=20`, { headers: auth }),
  },
  {
    name: 'listPets ?status=pending',
    request: (o) => fetch(`${o}/v1/pets?limit=20&status=pending`, { headers: auth }),
  },
  {
    name: 'getPet',
    request: (o) =>
      fetch(`${o}/v1/pets/${1 + Math.floor(Math.random() * pets)}`, { headers: auth }),
  },
  {
    name: 'createPet',
    request: (o) =>
      fetch(`${o}/v1/pets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Bench', categoryId: 1 }),
      }),
  },
  {
    name: 'listOrders ?petId',
    request: (o) => fetch(`${o}/v1/store/orders?petId=150`, { headers: auth }),
  },
  // Names from bench/seed.ts: at 1,000,000 pets `bella` is in about 122,000 names, `von bark`
  // in about 1,000, `quixote` in 6 and `qzx` in none.
  ...(
    [
      ['common', 'bella'],
      ['medium', 'von bark'],
      ['rare', 'quixote'],
      ['empty-result', 'qzx'],
    ] as const
  ).map(([kind, term]) => ({
    name: `listPets ?name= (${kind}, ${term})`,
    request: (o: string) =>
      fetch(`${o}/v1/pets?limit=20&name=${encodeURIComponent(term)}`, { headers: auth }),
  })),
];

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

export async function timed(op: Op, origin: string): Promise<number> {
  const started = performance.now();
  const response = await op.request(origin);
  await response.arrayBuffer();
  if (response.status >= 300) throw new Error(`${op.name}: ${response.status}`);
  return performance.now() - started;
}

export interface OpTiming {
  name: string;
  p50: number;
  p99: number;
}

export function summarise(name: string, samples: number[]): OpTiming {
  const sorted = [...samples].sort((a, b) => a - b);
  return { name, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/**
 * `rounds` timings of each target, one request to each in turn and each round starting one
 * target further on. On a shared machine the speed drifts over minutes by more than the
 * difference between sizes: measured one size after the other, the 10k and 1M figures of
 * 2026-11-25 came from runs minutes apart under different loads.
 */
export async function timeInterleaved<T>(
  targets: readonly T[],
  rounds: number,
  time: (target: T) => Promise<number>,
): Promise<number[][]> {
  const samples = targets.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < targets.length; turn++) {
      const index = (round + turn) % targets.length;
      const target = targets[index] as T;
      samples[index]?.push(await time(target));
    }
  }
  return samples;
}

/** Each operation timed on every service at once, interleaved: one list of timings per service. */
export async function compareOperations(
  services: readonly { pets: number; origin: string }[],
): Promise<OpTiming[][]> {
  const timings = services.map((): OpTiming[] => []);
  const names = ops(0).map((op) => op.name);
  for (const [index, name] of names.entries()) {
    const opOf = (service: { pets: number }) => ops(service.pets)[index] as Op;
    await timeInterleaved(services, WARM_UP, (s) => timed(opOf(s), s.origin));
    const samples = await timeInterleaved(services, REQUESTS, (s) => timed(opOf(s), s.origin));
    samples.forEach((values, i) => timings[i]?.push(summarise(name, values)));
  }
  return timings;
}

/** Each operation timed alone on one service, as it is just after start. */
export async function timeOperations(pets: number, origin: string): Promise<OpTiming[]> {
  const results: OpTiming[] = [];
  for (const op of ops(pets)) {
    for (let i = 0; i < WARM_UP; i++) await timed(op, origin);
    const samples: number[] = [];
    for (let i = 0; i < REQUESTS; i++) samples.push(await timed(op, origin));
    results.push(summarise(op.name, samples));
  }
  return results;
}
