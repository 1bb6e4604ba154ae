import type { ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULT_EMBEDDED_SETTINGS, POSTGRES_DEFAULTS } from './embedded-settings.js';
import { runEmbeddedPhase } from './embedded-report.js';
import { measure } from './measure.js';
import { benchScript, pinned, startProcess, stop, waitUntilAnswering } from './processes.js';
import {
  pairedRatio,
  renderSoak,
  renderTable,
  renderWorkers,
  summarise,
  type Sample,
  type ScenarioResult,
} from './report.js';
import { QUIET_LOAD, waitForQuiet } from './quiet.js';
import { recordRun } from './results.js';
import { scenarios, soakMix, withStreamsOpen, workersScenario } from './scenarios.js';
import { DEFAULT_BENCH_PETS, parsePetCount, resetWriteState, seedBenchDatabase } from './seed.js';
import { buildService, startService } from './service.js';
import { runStreamPhase } from './stream-phase.js';

const argv = process.argv.slice(2);
const { values: args } = parseArgs({
  args: argv,
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
    noisy: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(
    'npm run bench -- [--duration s] [--rounds n] [--soak s] [--connections n] [--pets n] [--database url] [--smoke]\n' +
      `  --pets <n>: seed a store of n pets (default ${DEFAULT_BENCH_PETS}; at least 3 per connection)\n` +
      '  --smoke: 1 s per scenario, one round, 2 s soak, nothing recorded (CI catches breakage, never timing)\n' +
      '  --only <text>[,<text>...]: only the paired rounds of scenarios whose name contains one of them\n' +
      '  --streams: only the phase with 1,000 event streams open\n' +
      '  --embedded <pets,...>: only the embedded phase, a PGlite folder of each size (10000,1000000)\n' +
      "  --pglite-defaults: the embedded phase with PostgreSQL's own memory and WAL settings\n" +
      '  --noisy: record the run even when the machine was busy at its start\n' +
      'Every run but a smoke is recorded in bench/results/, one file a run, unless the load\n' +
      `average at its start was above ${QUIET_LOAD} (something else was running).\n`,
  );
  process.exit(0);
}

const startedAt = new Date();
const smoke = args.smoke;
const loadAtStart = smoke ? (loadavg()[0] ?? NaN) : await waitForQuiet();
const wanted = args.only?.split(',');
const chosen = scenarios.filter(
  ({ name }) => !wanted || wanted.some((text) => name.includes(text)),
);
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

function record(kind: string, setup: string, report: string): void {
  process.stdout.write(`\n${setup}\n\n${report}\n`);
  if (smoke) return;
  if (loadAtStart > QUIET_LOAD && !args.noisy) {
    process.stdout.write(
      `\nNot recorded: load average ${loadAtStart.toFixed(1)} at the start (--noisy records it)\n`,
    );
    return;
  }
  const file = recordRun({ kind, args: argv, startedAt, loadAtStart, setup, report });
  process.stdout.write(`\nRecorded: ${file}\n`);
}

buildService();
if (args.embedded) {
  const settings = args['pglite-defaults'] ? POSTGRES_DEFAULTS : DEFAULT_EMBEDDED_SETTINGS;
  const sizes = args.embedded.split(',').map(Number);
  // A port of its own: another bench's service on SERVICE_PORT would answer for it.
  const report = await runEmbeddedPhase(sizes, settings, {
    port: EMBEDDED_PORT,
    core: serverCore,
    postgresUrl: args.database,
  });
  record(
    'embedded',
    `embedded database, ${sizes.map((size) => size.toLocaleString('en')).join(' and ')} pets`,
    report,
  );
  process.exit(0);
}
const databaseUrl = await seedBenchDatabase(args.database, 'petstore_bench', pets);
const setup = `${connections} connections, ${duration} s x ${rounds} rounds (medians; ratio = median of per-round service/floor)${args.only ? '' : `, soak ${soakSeconds} s`}, ${pets.toLocaleString('en')} pets, server pinned to core ${serverCore}, load on core ${loadCore}`;

/** The service as an operator runs it, with the metrics listener on, its collectors included. */
function benchService(port: number, env: Record<string, string>, core?: number): ChildProcess {
  return startService(
    {
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      API_KEYS: KEY,
      RATE_LIMIT: 'off',
      LOG_LEVEL: 'info',
      EVENT_STREAMS_PER_KEY: '5000',
      METRICS_PORT: String(port + 1000),
      ...env,
    },
    core,
  );
}

/**
 * Floor and service alternate who goes first in each round, so neither always meets a warmer
 * database. A scenario the floor has no route for is paired with the floor running the REST
 * scenario it is compared with (`comparedWith`), in the same slot; a write the floor does not
 * serve runs on the service alone. Conditions drift within a round (PostgreSQL checkpoints
 * whenever its WAL fills), so a floor figure from the start of the round is not a fair pair.
 */
async function compareWithFloor(floorPid: number, servicePid: number): Promise<ScenarioResult[]> {
  const samples = new Map<string, { floor: Sample[]; service: Sample[] }>();
  for (let round = 0; round < rounds; round++) {
    for (const scenario of chosen) {
      const entry = samples.get(scenario.name) ?? { floor: [], service: [] };
      samples.set(scenario.name, entry);
      const floorScenario = scenario.serviceOnly
        ? undefined
        : (scenarios.find(({ name }) => name === scenario.comparedWith) ?? scenario);
      const order =
        round % 2 === 0 ? (['floor', 'service'] as const) : (['service', 'floor'] as const);
      for (const who of order) {
        await resetWriteState(databaseUrl);
        if (who === 'service') {
          entry.service.push(await measure(servicePid, SERVICE_PORT, scenario.requests, load));
        } else if (floorScenario) {
          entry.floor.push(await measure(floorPid, FLOOR_PORT, floorScenario.requests, load));
        }
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
  ...pinned(
    serverCore,
    process.execPath,
    benchScript('./floor-server.ts', databaseUrl, KEY, String(FLOOR_PORT)),
  ),
);
const service = benchService(SERVICE_PORT, {}, serverCore);
const streamPhase = () =>
  runStreamPhase({
    service: { pid: service.pid ?? 0, port: SERVICE_PORT },
    load,
    scenarios: withStreamsOpen,
    rounds: smoke ? 1 : 3,
    streams: smoke ? 20 : 1_000,
    changesPerSecond: 200,
    changeSeconds: smoke ? 2 : 20,
  });
try {
  await waitUntilAnswering(`http://127.0.0.1:${FLOOR_PORT}/v1/pets`, {
    authorization: `Bearer ${KEY}`,
  });
  await waitUntilAnswering(`http://127.0.0.1:${SERVICE_PORT}/readyz`, {});
  if (args.streams) {
    record('streams', setup, await streamPhase());
  } else if (args.only) {
    record(
      'scenarios',
      setup,
      renderTable(await compareWithFloor(floor.pid ?? 0, service.pid ?? 0)),
    );
  } else {
    const results = await compareWithFloor(floor.pid ?? 0, service.pid ?? 0);
    const soak = await measure(service.pid ?? 0, SERVICE_PORT, soakMix, {
      ...load,
      duration: soakSeconds,
    });
    const report = [renderTable(results), renderSoak('mixed REST + tRPC', soak, soakSeconds)];
    report.push(await streamPhase());
    await Promise.all([stop(floor), stop(service)]);
    const oneWorker = results.find(({ scenario }) => scenario === workersScenario.name)?.service;
    report.push(await compareWorkers(oneWorker));
    record('full', setup, report.join('\n\n'));
  }
} finally {
  await Promise.all([stop(floor), stop(service)]);
}

/** Both processes on both cores, sharing them with the load generator and PostgreSQL. */
async function compareWorkers(oneWorker: Sample | undefined): Promise<string> {
  const workers = benchService(WORKERS_PORT, { WORKERS: '2' });
  try {
    await waitUntilAnswering(`http://127.0.0.1:${WORKERS_PORT}/readyz`, {});
    const two = await measure(workers.pid ?? 0, WORKERS_PORT, workersScenario.requests, load);
    return oneWorker ? renderWorkers(workersScenario.name, oneWorker, two) : '';
  } finally {
    await stop(workers);
  }
}
