import { execFile } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

export interface Run {
  code: number;
  output: string;
}

export function run(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? 120_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
      },
    );
  });
}

/** The repository's own TypeScript compiler, as a front-end's `npx tsc` would run it. */
export function tsc(args: string[], cwd: string): Promise<Run> {
  return run([TSC, ...args], { cwd });
}

export interface FrontendProject {
  /** The package as a front-end sees it: package.json as committed, dist/ as `npm run build` makes it. */
  serviceDir: string;
  frontendDir: string;
  write(path: string, text: string): Promise<void>;
  remove(): Promise<void>;
}

/**
 * Two folders side by side in a temporary directory, laid out as npm lays out
 * `"petstore-service": "file:../service"`: the front-end's node_modules/petstore-service is a
 * link to the service folder, whose own node_modules serve its imports. The service folder holds
 * the repository's package.json and a fresh build by tsconfig.build.json; its node_modules is
 * a link to the repository's, so nothing is installed. The build is `npm run build`'s: tsc, the
 * client's router type written out in full, the migrations and the migrated empty database
 * (made by the tests' global setup) beside them.
 */
export async function createFrontendProject(): Promise<FrontendProject> {
  const base = await mkdtemp(join(tmpdir(), 'petstore-frontend-'));
  const serviceDir = join(base, 'service');
  const frontendDir = join(base, 'frontend');
  const write = async (path: string, text: string) => {
    await mkdir(dirname(join(frontendDir, path)), { recursive: true });
    await writeFile(join(frontendDir, path), text);
  };
  try {
    await mkdir(serviceDir);
    await copyFile(join(ROOT, 'package.json'), join(serviceDir, 'package.json'));
    await symlink(join(ROOT, 'node_modules'), join(serviceDir, 'node_modules'), 'dir');
    const build = await tsc(
      ['-p', 'tsconfig.build.json', '--outDir', join(serviceDir, 'dist')],
      ROOT,
    );
    if (build.code !== 0) throw new Error(`tsc -p tsconfig.build.json failed:\n${build.output}`);
    const outDir = join(serviceDir, 'dist');
    const types = await run([join(outDir, 'scripts/client-types.js'), '--out-dir', outDir], {
      cwd: ROOT,
    });
    if (types.code !== 0) throw new Error(`scripts/client-types.ts failed:\n${types.output}`);
    await cp(join(ROOT, 'drizzle'), join(outDir, 'drizzle'), { recursive: true });
    await cp(join(ROOT, 'empty-database'), join(outDir, 'empty-database'), { recursive: true });

    await mkdir(join(frontendDir, 'node_modules'), { recursive: true });
    await symlink('../../service', join(frontendDir, 'node_modules/petstore-service'), 'dir');
    await write(
      'package.json',
      JSON.stringify({
        name: 'petstore-frontend',
        private: true,
        type: 'module',
        dependencies: { 'petstore-service': 'file:../service' },
      }),
    );
  } catch (error) {
    await rm(base, { recursive: true, force: true });
    throw error;
  }
  return {
    serviceDir,
    frontendDir,
    write,
    remove: () => rm(base, { recursive: true, force: true }),
  };
}

/**
 * A front-end's strict tsconfig.json, checking libraries too (tsc's default `skipLibCheck: false`);
 * `types: []` keeps the test machine's @types out.
 */
export function frontendTsconfig(resolution: 'NodeNext' | 'Bundler', files: string[]): string {
  return JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: resolution === 'NodeNext' ? 'NodeNext' : 'ESNext',
      moduleResolution: resolution,
      // A strict front-end without ESNext: the entry brings the lib that @trpc/server's
      // Disposable and AsyncDisposable need (client/index.ts).
      lib: ['ES2022', 'DOM', 'DOM.Iterable'],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
    },
    files,
  });
}
