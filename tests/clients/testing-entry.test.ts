import { readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createFrontendProject,
  frontendTsconfig,
  run,
  tsc,
  type FrontendProject,
} from '../helpers/frontend-project.js';
import { describeOnEmbedded } from '../helpers/database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');

/** docs/clients.md's vitest file for `petstore-service/testing`, exactly as written there. */
async function documentedExample(): Promise<string> {
  const doc = await readFile(join(ROOT, 'docs/clients.md'), 'utf8');
  const example = /```ts\n([^`]*from 'petstore-service\/testing'[^`]*)```/.exec(doc)?.[1];
  if (example === undefined)
    throw new Error('docs/clients.md has no petstore-service/testing example');
  return example;
}

// The package is built as in package-entry.test.ts; the service runs on its own in-memory
// database whatever the project, so this runs once per test run, in the embedded project.
describeOnEmbedded('petstore-service/testing in a front-end that depends on the package', () => {
  let built: FrontendProject | undefined;
  const project = () => {
    if (!built) throw new Error('the front-end project was not built');
    return built;
  };

  beforeAll(async () => {
    built = await createFrontendProject();
    // The front-end installs vitest itself; here it is the repository's copy.
    await symlink(
      join(ROOT, 'node_modules/vitest'),
      join(built.frontendDir, 'node_modules/vitest'),
      'dir',
    );
    await built.write('src/petstore.test.ts', await documentedExample());
  }, 300_000);

  afterAll(() => built?.remove());

  it(
    'runs the documented vitest file as written, with vitest in the front-end',
    {
      timeout: 180_000,
    },
    async () => {
      const vitest = await run([VITEST, 'run', '--reporter=verbose'], {
        cwd: project().frontendDir,
        env: { PATH: process.env.PATH, CI: 'true', NO_COLOR: '1' },
        timeoutMs: 170_000,
      });
      expect(vitest.output).toContain('finds over REST the pet the caller created');
      expect(vitest.output).toMatch(/Tests\s+1 passed/);
      expect(vitest.code, vitest.output).toBe(0);
    },
  );

  it(
    'type-checks the documented file strictly, through the entry’s declarations',
    {
      timeout: 120_000,
    },
    async () => {
      await project().write(
        'tsconfig.json',
        frontendTsconfig('NodeNext', ['src/petstore.test.ts']),
      );
      const check = await tsc(['-p', 'tsconfig.json', '--listFiles'], project().frontendDir);
      expect(check.output).not.toMatch(/error TS/);
      expect(check.code).toBe(0);
      const files = check.output
        .split('\n')
        .filter((line) => line.startsWith(project().serviceDir));
      expect(files).toContain(join(project().serviceDir, 'dist/testing/index.d.ts'));
      // The caller's type is the published router's: no declaration of the server's is read.
      expect(files.filter((file) => file.includes('/dist/server/'))).toEqual([]);
    },
  );
});
