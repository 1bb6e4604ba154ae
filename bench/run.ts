import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startNodeFlags } from '../scripts/start-flags.js';
import { pinned, rssMiB, runToJson, startProcess, stop, waitUntilAnswering } from './processes.js';
import { renderTable, summarise, type Sample, type ScenarioResult } from './report.js';
import { BENCH_PETS, seedBenchDatabase } from './seed.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    database: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    smoke: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(
    'npm run bench -- [--duration s] [--rounds n] [--connections n] [--database url] [--smoke]\n' +
      '  --smoke: 1 s per scenario, one round, no report (CI catches breakage, never timing)\n',
  );
  process.exit(0);
}

const smoke = args.smoke;
const duration = smoke ? 1 : Number(args.duration);
const rounds = smoke ? 1 : Number(args.rounds);
const connections = Number(args.connections);
const KEY = 'bench-key';
const FLOOR_PORT = 4101;
const SERVICE_PORT = 4102;
// Server on core 0, load generator on core 1, when the machine has two.
const [serverCore, loadCore] = availableParallelism() > 1 ? [0, 1] : [0, 0];

interface Scenario {
  name: string;
  path: string;
  method: 'GET' | 'POST';
  body?: string;
  randomIdUpTo?: number;
  /** Compared with the floor's list 20 when the floor has no such route. */
  serviceOnly?: boolean;
}

const scenarios: Scenario[] = [
  { name: 'REST list 20', path: '/v1/pets?limit=20', method: 'GET' },
  {
    name: 'REST list 100, status filter',
    path: '/v1/pets?limit=100&status=available',
    method: 'GET',
  },
  { name: 'REST get', path: '/v1/pets/{id}', method: 'GET', randomIdUpTo: BENCH_PETS },
  {
    name: 'REST create',
    path: '/v1/pets',
    method: 'POST',
    body: JSON.stringify({ name: 'Bench', categoryId: 7 }),
  },
  {
    name: 'tRPC list 20 (vs floor list 20)',
    path: `/trpc/pets.list?input=${encodeURIComponent(JSON.stringify({ limit: 20 }))}`,
    method: 'GET',
    serviceOnly: true,
  },
];

async function measure(pid: number, port: number, scenario: Scenario): Promise<Sample> {
  let peak = rssMiB(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 250);
  const spec = { ...scenario, url: `http://127.0.0.1:${port}`, connections, duration, key: KEY };
  const [command, commandArgs] = pinned(loadCore, process.execPath, [
    '--import',
    'tsx',
    'bench/load.ts',
    JSON.stringify(spec),
  ]);
  try {
    const result = await runToJson<Omit<Sample, 'peakRssMiB'>>(command, commandArgs);
    return { ...result, peakRssMiB: peak };
  } finally {
    clearInterval(sampler);
  }
}

execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
const databaseUrl = await seedBenchDatabase(args.database, 'petstore_bench');

const floor = startProcess(
  ...pinned(serverCore, process.execPath, [
    '--import',
    'tsx',
    'bench/floor-server.ts',
    databaseUrl,
    KEY,
    String(FLOOR_PORT),
  ]),
);
const service = startProcess(
  ...pinned(serverCore, process.execPath, [...startNodeFlags(), 'dist/server/main.js']),
  {
    PORT: String(SERVICE_PORT),
    DATABASE_URL: databaseUrl,
    API_KEYS: KEY,
    RATE_LIMIT: 'off',
    LOG_LEVEL: 'info',
  },
);
const auth = { authorization: `Bearer ${KEY}` };
try {
  await waitUntilAnswering(`http://127.0.0.1:${FLOOR_PORT}/v1/pets`, auth);
  await waitUntilAnswering(`http://127.0.0.1:${SERVICE_PORT}/readyz`, {});
  const samples = new Map<string, { floor: Sample[]; service: Sample[] }>();
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) {
      const entry = samples.get(scenario.name) ?? { floor: [], service: [] };
      samples.set(scenario.name, entry);
      // Alternate who goes first, so neither always meets a warmer database.
      const order =
        round % 2 === 0 ? (['floor', 'service'] as const) : (['service', 'floor'] as const);
      for (const who of order) {
        if (who === 'floor' && scenario.serviceOnly) continue;
        const target =
          who === 'floor'
            ? { pid: floor.pid, port: FLOOR_PORT }
            : { pid: service.pid, port: SERVICE_PORT };
        entry[who].push(await measure(target.pid ?? 0, target.port, scenario));
      }
    }
  }
  const results: ScenarioResult[] = scenarios.map(({ name }) => {
    const entry = samples.get(name) ?? { floor: [], service: [] };
    return {
      scenario: name,
      floor: entry.floor.length ? summarise(entry.floor) : undefined,
      service: summarise(entry.service),
    };
  });
  const table = renderTable(results, results[0]?.floor);
  process.stdout.write(`\n${table}\n`);
  if (!smoke) {
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/${new Date().toISOString().slice(0, 10)}.md`;
    const setup = `${connections} connections, ${duration} s x ${rounds} rounds (medians), ${BENCH_PETS} pets, server pinned to core ${serverCore}, load on core ${loadCore}, Node ${process.version}`;
    writeFileSync(file, `# Benchmark ${new Date().toISOString()}\n\n${setup}\n\n${table}\n`);
    process.stdout.write(`\nReport: ${file}\n`);
  }
} finally {
  await Promise.all([stop(floor), stop(service)]);
}
