import { execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinned, startProcess } from './processes.js';

/**
 * The service as its users run it: built by `npm run build`, started as `npm start` starts it,
 * migrated by `npm run db:migrate`, all in the repository the bench sits in. The bench reads
 * nothing else of it.
 */
export const SERVICE_ROOT = fileURLToPath(new URL('..', import.meta.url));

export function buildService(): void {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: SERVICE_ROOT, stdio: 'inherit' });
}

/** Brings the PostgreSQL database at `url` to the service's schema, as an operator does. */
export function migrateDatabase(url: string): void {
  execFileSync('npm', ['run', '--silent', 'db:migrate'], {
    cwd: SERVICE_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DATABASE_URL: url },
  });
}

function readManifest(root = SERVICE_ROOT): {
  scripts: { start: string };
  dependencies: Record<string, string>;
} {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string };
    dependencies: Record<string, string>;
  };
}

/** `npm start`'s node arguments (flags and entry point), run without npm in between. */
export function startArguments(root = SERVICE_ROOT): string[] {
  const { start } = readManifest(root).scripts;
  const [command, ...rest] = start.split(/\s+/);
  if (command !== 'node') throw new Error(`npm start must run node directly: ${start}`);
  return rest;
}

/** The version of a dependency the service pins, e.g. the PGlite that writes its folders. */
export function serviceDependency(name: string): string | undefined {
  return readManifest().dependencies[name];
}

/** Another build of the service: a checkout at `root`, run by the node at `node`. */
export interface ServiceBuild {
  root: string;
  node: string;
}

/**
 * The built service, on `core` when given (taskset execs node, so the child's pid is the
 * service's own, whose CPU time the bench reads), with `env` on top of the bench's own. The
 * bench's own checkout and node unless `build` names others, each build as its `npm start` does.
 */
export function startService(
  env: Record<string, string>,
  core?: number,
  build: ServiceBuild = { root: SERVICE_ROOT, node: process.execPath },
): ChildProcess {
  const args = startArguments(build.root);
  const [command, commandArgs] =
    core === undefined ? [build.node, args] : pinned(core, build.node, args);
  return startProcess(command, commandArgs, env, build.root);
}
