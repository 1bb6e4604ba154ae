import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { SERVICE_ROOT } from './service.js';

/** Where every run's record goes, one file a run; the docs cite these files. */
const RESULTS = new URL('./results/', import.meta.url);

/** The service's commit, and whether the work tree differed from it. */
function serviceCommit(): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: SERVICE_ROOT, encoding: 'utf8' }).trim();
  const changed = git('status', '--porcelain', '--untracked-files=no') !== '';
  return `${git('rev-parse', '--short', 'HEAD')}${changed ? ' with uncommitted changes' : ''}`;
}

/** An argument as a shell would need it written. */
const quoted = (arg: string) => (/^[\w.,=/-]+$/.test(arg) ? arg : JSON.stringify(arg));

export interface RunRecord {
  /** What the run measured, in the file's name: `scenarios`, `embedded`, ... */
  kind: string;
  /** The arguments after the command's `--`. */
  args: string[];
  /** The npm script run, `npm run bench` unless said. */
  command?: string;
  startedAt: Date;
  /** The one-minute load average when the run started: what else the cores were running. */
  loadAtStart: number;
  setup: string;
  report: string;
}

/** Writes the run's record to bench/results/<start time>-<kind>.md and returns its path. */
export function recordRun(run: RunRecord): string {
  const started = run.startedAt.toISOString().slice(0, 16);
  const minutes = Math.round((Date.now() - run.startedAt.getTime()) / 60_000);
  const name = `${started.replace(':', '-')}-${run.kind}.md`;
  const model = cpus()[0]?.model ?? 'unknown CPU';
  const header = [
    `# Benchmark: ${run.kind}, ${started.replace('T', ' ')} UTC, ${minutes} min`,
    '',
    `- Command: \`${run.command ?? 'npm run bench'} --${run.args.map((arg) => ` ${quoted(arg)}`).join('')}\``,
    `- Service: ${serviceCommit()}`,
    `- Machine: ${availableParallelism()} cores (${model}), the bench on Node ${process.version}, load average ${run.loadAtStart.toFixed(1)} at the start and ${(loadavg()[0] ?? NaN).toFixed(1)} at the end`,
    `- Setup: ${run.setup}`,
  ];
  mkdirSync(RESULTS, { recursive: true });
  const file = fileURLToPath(new URL(name, RESULTS));
  writeFileSync(file, `${header.join('\n')}\n\n${run.report}\n`);
  return file;
}
