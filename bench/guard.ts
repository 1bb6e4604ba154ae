import type { ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { buildCommit, nodeOfLine, referenceCommit } from './builds.js';
import { renderGuard, slowerScenarios, CPU_LIMIT, type GuardRound } from './guard-verdict.js';
import { measure, type LoadSettings } from './measure.js';
import { benchScript, pinned, startProcess, stop, waitUntilAnswering } from './processes.js';
import { recordRun } from './results.js';
import { scenarios, type Scenario } from './scenarios.js';
import { DEFAULT_BENCH_PETS, resetWriteState, seedBenchDatabase } from './seed.js';
import { buildService, SERVICE_ROOT, startService, type ServiceBuild } from './service.js';
import { QUIET_LOAD, waitForQuiet } from './quiet.js';

const argv = process.argv.slice(2);
const { values: args } = parseArgs({
  args: argv,
  options: {
    reference: { type: 'string' },
    node: { type: 'string', default: '24,22' },
    rounds: { type: 'string', default: '4' },
    duration: { type: 'string', default: '5' },
    database: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    record: { type: 'boolean', default: false },
    noisy: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(
    'npm run bench:guard -- [--reference commit] [--node 24,22] [--rounds n] [--duration s] [--record [--noisy]]\n' +
      '  Builds the reference (bench/REFERENCE unless given) in a temporary worktree and measures it,\n' +
      '  this checkout and the bare floor interleaved on REST get and list 20, on each Node line.\n' +
      `  Exits 1 when the checkout's CPU per request, loaded side by side with the reference, is\n` +
      `  above ${CPU_LIMIT}x the reference's on a scenario in two successive rounds.\n` +
      '  --record writes bench/results/ (refused above load 1.5 unless --noisy).\n',
  );
  process.exit(0);
}

const GUARDED = ['REST get', 'REST list 20'];
const guarded = GUARDED.map((name) => {
  const scenario = scenarios.find((candidate) => candidate.name === name);
  if (!scenario) throw new Error(`No scenario ${name}`);
  return scenario;
});
const KEY = 'bench-key';
const PORTS = { floor: 4111, reference: 4112, checkout: 4113 } as const;
type Who = keyof typeof PORTS;
const [serverCore, loadCore] = availableParallelism() > 1 ? [0, 1] : [0, 0];
const rounds = Number(args.rounds);
const load: LoadSettings = {
  connections: 50,
  duration: Number(args.duration),
  key: KEY,
  core: loadCore,
  pets: DEFAULT_BENCH_PETS,
};

const startedAt = new Date();
const loadAtStart = await waitForQuiet();
const commit = args.reference ?? referenceCommit();
process.stdout.write(`bench:guard: reference ${commit}, building it in a worktree\n`);
buildService();
const reference = buildCommit(commit);
const databaseUrl = await seedBenchDatabase(args.database, 'petstore_guard', DEFAULT_BENCH_PETS);

function start(who: Who, node: string): ChildProcess {
  const port = String(PORTS[who]);
  if (who === 'floor') {
    return startProcess(
      ...pinned(serverCore, node, benchScript('./floor-server.ts', databaseUrl, KEY, port)),
    );
  }
  const build: ServiceBuild = { root: who === 'checkout' ? SERVICE_ROOT : reference.root, node };
  const env = { PORT: port, DATABASE_URL: databaseUrl, API_KEYS: KEY, RATE_LIMIT: 'off' };
  return startService(
    { ...env, LOG_LEVEL: 'info', METRICS_PORT: String(PORTS[who] + 1000) },
    serverCore,
    build,
  );
}

const ORDER: Who[] = ['floor', 'reference', 'checkout'];

/** The servers of one round, new processes each: a process's own state lasts one round. */
async function startServers(node: string): Promise<Record<Who, ChildProcess>> {
  const servers = {
    floor: start('floor', node),
    reference: start('reference', node),
    checkout: start('checkout', node),
  };
  await waitUntilAnswering(`http://127.0.0.1:${PORTS.floor}/v1/pets`, {
    authorization: `Bearer ${KEY}`,
  });
  await waitUntilAnswering(`http://127.0.0.1:${PORTS.reference}/readyz`, {});
  await waitUntilAnswering(`http://127.0.0.1:${PORTS.checkout}/readyz`, {});
  return servers;
}

/**
 * One round of one scenario: each server alone, who goes first rotating with the round so no
 * server always meets a warmer database, each warmed up first, unrecorded (its compiler's
 * seconds); then the two builds side by side, half the connections each, for the verdict.
 */
async function measureRound(scenario: Scenario, servers: Record<Who, ChildProcess>, round: number) {
  const samples: Partial<GuardRound> = {};
  const run = (who: Who, settings: LoadSettings) =>
    measure(servers[who].pid ?? 0, PORTS[who], scenario.requests, settings);
  for (const who of [...ORDER.slice(round % 3), ...ORDER.slice(0, round % 3)]) {
    await run(who, { ...load, duration: 2 });
    await resetWriteState(databaseUrl);
    samples[who] = await run(who, load);
  }
  const half = { ...load, connections: load.connections / 2 };
  const [reference, checkout] = await Promise.all([run('reference', half), run('checkout', half)]);
  return { ...samples, sideBySide: { reference, checkout } } as GuardRound;
}

/**
 * Every round on new processes: V8 can settle a process into a costlier state for its whole
 * life (docs/performance.md), which one process per build would carry into every round.
 */
async function guardLine(line: string) {
  const node = nodeOfLine(line);
  const results = guarded.map((scenario) => ({
    scenario: scenario.name,
    rounds: [] as GuardRound[],
  }));
  for (let round = 0; round < rounds; round++) {
    const servers = await startServers(node);
    try {
      for (const [index, scenario] of guarded.entries()) {
        results[index]?.rounds.push(await measureRound(scenario, servers, round));
      }
    } finally {
      await Promise.all(Object.values(servers).map(stop));
    }
    process.stdout.write(`  Node ${line}: round ${round + 1} of ${rounds} measured\n`);
  }
  return results;
}

const reports: string[] = [];
const slow: string[] = [];
try {
  for (const line of args.node.split(',')) {
    const results = await guardLine(line);
    reports.push(`Node ${line}\n\n${renderGuard(results)}`);
    slow.push(...slowerScenarios(results).map((scenario) => `${scenario} on Node ${line}`));
  }
} finally {
  reference.remove();
}
const setup = `reference ${commit} against this checkout, services on Node ${args.node}, ${rounds} rounds of ${load.duration} s, 50 connections, ${DEFAULT_BENCH_PETS.toLocaleString('en')} pets, servers on core ${serverCore}, load on core ${loadCore}`;
const report = reports.join('\n\n');
process.stdout.write(`\n${setup}\n\n${report}\n\n`);
if (args.record) {
  if (loadAtStart > QUIET_LOAD && !args.noisy) {
    process.stdout.write(
      `Not recorded: load average ${loadAtStart.toFixed(1)} at the start (--noisy records it anyway)\n`,
    );
  } else {
    const file = recordRun({
      kind: 'guard',
      command: 'npm run bench:guard',
      args: argv,
      startedAt,
      loadAtStart,
      setup,
      report,
    });
    process.stdout.write(`Recorded: ${file}\n`);
  }
}
if (slow.length > 0) {
  process.stdout.write(
    `bench:guard: slower than ${commit} by more than ${CPU_LIMIT}x in two successive rounds: ${slow.join('; ')}\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `bench:guard: no scenario slower than ${commit} by more than ${CPU_LIMIT}x (load ${(loadavg()[0] ?? NaN).toFixed(1)} at the end)\n`,
);
