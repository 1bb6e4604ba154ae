import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startNodeFlags } from '../scripts/start-flags.js';
import { measure } from './measure.js';
import { pinned, startProcess, stop, waitUntilAnswering } from './processes.js';
import {
  pairedRatio,
  renderSoak,
  renderTable,
  renderWorkers,
  summarise,
  type Sample,
  type ScenarioResult,
} from './report.js';
import { scenarios, soakMix, withStreamsOpen, workersScenario } from './scenarios.js';
import { runStreamPhase } from './stream-phase.js';
import { runEmbeddedPhase, POSTGRES_DEFAULTS } from './embedded-report.js';
import { DEFAULT_EMBEDDED_SETTINGS } from '../db/embedded/settings.js';
import { DEFAULT_BENCH_PETS, parsePetCount, resetWriteState, seedBenchDatabase } from './seed.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    pets: { type: 'string', default: String(DEFAULT_BENCH_PETS) },
    database: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    soak: { type: 'string', default: '60' },
    smoke: { type: 'boolean', default: false },
    only: { type: 'string' },
    streams: { type: 'boolean', default: false },
    embedded: { type: 'string' },
    'pglite-defaults': { type: 'boolean', default: false },
    'contract-floor': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(
    'npm run bench -- [--duration s] [--rounds n] [--soak s] [--connections n] [--pets n] [--database url] [--smoke]\n' +
      `  --pets <n>: seed a store of n pets (default ${DEFAULT_BENCH_PETS}; at least 3 per connection)\n` +
      '  --smoke: 1 s per scenario, one round, 2 s soak, no report (CI catches breakage, never timing)\n' +
      '  --only <text>: only the paired rounds of scenarios whose name contains <text>, no report\n' +
      '  --streams: only the phase with 1,000 event streams open, no report\n' +
      '  --embedded <pets,...>: only the embedded phase, a PGlite folder of each size (10000,1000000)\n' +
      "  --pglite-defaults: the embedded phase with PostgreSQL's own memory and WAL settings\n" +
      "  --contract-floor: the floor also does the contract's per-request work (bench/contract-work.ts)\n",
  );
  process.exit(0);
}

const smoke = args.smoke;
const chosen = scenarios.filter(({ name }) => !args.only || name.includes(args.only));
const duration = smoke ? 1 : Number(args.duration);
const rounds = smoke ? 1 : Number(args.rounds);
const soakSeconds = smoke ? 2 : Number(args.soak);
const connections = Number(args.connections);
const pets = parsePetCount(args.pets, connections);
const KEY = 'bench-key';
const FLOOR_PORT = 4101;
const SERVICE_PORT = 4102;
const WORKERS_PORT = 4103;
const EMBEDDED_PORT = 4107;
// Server on core 0, load generator on core 1, when the machine has two.
const [serverCore, loadCore] = availableParallelism() > 1 ? [0, 1] : [0, 0];
const load = { connections, duration, key: KEY, core: loadCore, pets };

execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
if (args.embedded) {
  await runEmbeddedPhase(
    args.embedded.split(',').map(Number),
    args['pglite-defaults'] ? POSTGRES_DEFAULTS : DEFAULT_EMBEDDED_SETTINGS,
    // A port of its own: another bench's service on SERVICE_PORT would answer for it.
    { port: EMBEDDED_PORT, core: serverCore, postgresUrl: args.database },
  );
  process.exit(0);
}
const databaseUrl = await seedBenchDatabase(args.database, 'petstore_bench', pets);
const floorKind = args['contract-floor']
  ? "floor with the contract's per-request work (bench/contract-work.ts)"
  : 'bare floor';
const setup = `${floorKind}, ${connections} connections, ${duration} s x ${rounds} rounds (medians; ratio = median of per-round service/floor)${args.only ? '' : `, soak ${soakSeconds} s`}, ${pets.toLocaleString('en')} pets, server pinned to core ${serverCore}, load on core ${loadCore}, Node ${process.version}`;

function startService(port: number, env: Record<string, string>, core?: number) {
  const command = [...startNodeFlags(), 'dist/server/main.js'];
  return startProcess(
    ...(core === undefined
      ? ([process.execPath, command] as const)
      : pinned(core, process.execPath, command)),
    {
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      API_KEYS: KEY,
      RATE_LIMIT: 'off',
      LOG_LEVEL: 'info',
      EVENT_STREAMS_PER_KEY: '5000',
      // Measured as an operator runs it: with the metrics listener on, its collectors included.
      METRICS_PORT: String(port + 1000),
      ...env,
    },
  );
}

const auth = { authorization: `Bearer ${KEY}` };

/**
 * Floor and service alternate who goes first in each round, so neither always meets a warmer
 * database. A scenario the floor has no route for (tRPC) is paired with the floor running the
 * REST scenario it is compared with, in the same slot. Conditions drift within a round: the
 * creates just before tRPC list 20 write tens of thousands of rows, and PostgreSQL checkpoints
 * whenever its WAL fills (13 requested checkpoints in one run), so a floor figure from the
 * start of the round is not a fair pair.
 */
async function compareWithFloor(floorPid: number, servicePid: number): Promise<ScenarioResult[]> {
  const samples = new Map<string, { floor: Sample[]; service: Sample[] }>();
  for (let round = 0; round < rounds; round++) {
    for (const scenario of chosen) {
      const entry = samples.get(scenario.name) ?? { floor: [], service: [] };
      samples.set(scenario.name, entry);
      const floorScenario =
        scenarios.find(({ name }) => name === scenario.comparedWith) ?? scenario;
      const order =
        round % 2 === 0 ? (['floor', 'service'] as const) : (['service', 'floor'] as const);
      for (const who of order) {
        await resetWriteState(databaseUrl);
        entry[who].push(
          who === 'floor'
            ? await measure(floorPid, FLOOR_PORT, floorScenario.requests, load)
            : await measure(servicePid, SERVICE_PORT, scenario.requests, load),
        );
      }
    }
  }
  return chosen.map(({ name, comparedWith }) => {
    const { floor, service } = samples.get(name) ?? { floor: [], service: [] };
    return {
      scenario: comparedWith ? `${name} (vs floor ${comparedWith.replace('REST ', '')})` : name,
      floor: floor.length ? summarise(floor) : undefined,
      service: summarise(service),
      ratio: pairedRatio(service, floor),
      // floor / service: a service that needs more CPU per request scores below 1, as for req/s.
      cpuRatio: pairedRatio(floor, service, (sample) => sample.cpuUsPerRequest),
    };
  });
}

const floor = startProcess(
  ...pinned(serverCore, process.execPath, [
    '--import',
    'tsx',
    'bench/floor-server.ts',
    databaseUrl,
    KEY,
    String(FLOOR_PORT),
    ...(args['contract-floor'] ? ['--contract-work'] : []),
  ]),
);
const service = startService(SERVICE_PORT, {}, serverCore);
const streamPhase = () =>
  runStreamPhase({
    floor: { pid: floor.pid ?? 0, port: FLOOR_PORT },
    service: { pid: service.pid ?? 0, port: SERVICE_PORT },
    load,
    scenarios: withStreamsOpen,
    rounds: smoke ? 1 : 3,
    streams: smoke ? 20 : 1_000,
    changesPerSecond: 200,
    changeSeconds: smoke ? 2 : 20,
  });
let report: string[];
try {
  await waitUntilAnswering(`http://127.0.0.1:${FLOOR_PORT}/v1/pets`, auth);
  await waitUntilAnswering(`http://127.0.0.1:${SERVICE_PORT}/readyz`, {});
  if (args.streams) {
    process.stdout.write(`\n${await streamPhase()}\n`);
    await Promise.all([stop(floor), stop(service)]);
    process.exit(0);
  }
  const results = await compareWithFloor(floor.pid ?? 0, service.pid ?? 0);
  if (args.only) {
    process.stdout.write(`\n${setup}\n\n${renderTable(results)}\n`);
    await Promise.all([stop(floor), stop(service)]);
    process.exit(0);
  }
  const soak = await measure(service.pid ?? 0, SERVICE_PORT, soakMix, {
    ...load,
    duration: soakSeconds,
  });
  report = [renderTable(results), renderSoak('mixed REST + tRPC', soak, soakSeconds)];
  report.push(await streamPhase());
  const oneWorker = results.find(({ scenario }) => scenario === workersScenario.name)?.service;
  await Promise.all([stop(floor), stop(service)]);
  // Both processes on both cores, sharing them with the load generator and PostgreSQL.
  const workers = startService(WORKERS_PORT, { WORKERS: '2' });
  try {
    await waitUntilAnswering(`http://127.0.0.1:${WORKERS_PORT}/readyz`, {});
    const two = await measure(workers.pid ?? 0, WORKERS_PORT, workersScenario.requests, load);
    if (oneWorker) report.push(renderWorkers(workersScenario.name, oneWorker, two));
  } finally {
    await stop(workers);
  }
} finally {
  await Promise.all([stop(floor), stop(service)]);
}

process.stdout.write(`\n${report.join('\n\n')}\n`);
if (!smoke) {
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/${new Date().toISOString().slice(0, 10)}.md`;
  writeFileSync(
    file,
    `# Benchmark ${new Date().toISOString()}\n\n${setup}\n\n${report.join('\n\n')}\n`,
  );
  process.stdout.write(`\nReport: ${file}\n`);
}
