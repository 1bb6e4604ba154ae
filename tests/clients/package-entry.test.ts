import { spawn } from 'node:child_process';
import { readdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  createFrontendProject,
  frontendTsconfig,
  run,
  tsc,
  type FrontendProject,
} from '../helpers/frontend-project.js';
import { describeOnEmbedded } from '../helpers/database.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** tsx's loader, so node runs the README's TypeScript as a front-end's toolchain would. */
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

/**
 * What a front-end writes against `petstore-service/client`. Every `@ts-expect-error` line must
 * fail to compile: tsc reports a directive that no longer meets an error, so a type that
 * loosens (to `any`, say) fails this test as surely as one that breaks.
 */
const APP = `
import {
  createPetstoreRestClient,
  createPetstoreTrpcClient,
  TRPCClientError,
  type AppRouter,
  type PetstoreInputs,
  type PetstoreOutputs,
} from 'petstore-service/client';
// @ts-expect-error only the client entry is public: the server's files are not exported
import type { AppRouter as Deep } from 'petstore-service/server/surfaces/trpc/router';

const trpc = createPetstoreTrpcClient({ url: 'http://127.0.0.1:3000/trpc', apiKey: 'psk_x' });
const rest = createPetstoreRestClient({ baseUrl: 'http://127.0.0.1:3000/v1', apiKey: 'psk_x' });

export async function compiles(): Promise<AppRouter | undefined> {
  const input: PetstoreInputs['pets']['create'] = { name: 'Rex', categoryId: 3 };
  const pet: PetstoreOutputs['pets']['create'] = await trpc.pets.create.mutate(input);
  const status: 'available' | 'pending' | 'sold' = pet.status;
  const page: { id: number }[] = await trpc.pets.list.query({ status, limit: 50 });
  const same: { name: string } = await trpc.pets.get.query({ petId: pet.id });
  const listed = await trpc.pets.listPage.query({ limit: 10, cursor: undefined });
  const cursor: string | null = listed.nextCursor;

  const created = await rest.POST('/pets', { body: { name: 'Rex', categoryId: 3 } });
  const id: number | undefined = created.data?.id;
  const code: string | undefined = created.error?.code;
  await rest.GET('/pets', { params: { query: { status: 'sold', limit: 10 } } });
  await rest.GET('/pets/{petId}', { params: { path: { petId: id ?? 1 } } });
  const failed: boolean = (await trpc.pets.get.query({ petId: 1 }).catch((e: unknown) => e)) instanceof TRPCClientError;
  void [page, same, cursor, code, failed];
  return undefined;
}

export async function doesNotCompile(): Promise<void> {
  // @ts-expect-error categoryId is a number
  await trpc.pets.create.mutate({ name: 'Rex', categoryId: '3' });
  // @ts-expect-error name is required
  await trpc.pets.create.mutate({ categoryId: 3 });
  // @ts-expect-error unknown fields are refused
  await trpc.pets.create.mutate({ name: 'Rex', categoryId: 3, colour: 'brown' });
  // @ts-expect-error no such procedure
  await trpc.pets.remove.mutate({ petId: 1 });
  // @ts-expect-error a query is not a mutation
  await trpc.pets.list.mutate({});
  // @ts-expect-error the output has no such field
  void (await trpc.pets.get.query({ petId: 1 })).owner;
  // @ts-expect-error status is one of available, pending, sold
  await rest.POST('/pets', { body: { name: 'Rex', categoryId: 3, status: 'lost' } });
  // @ts-expect-error no such path
  await rest.GET('/owners', {});
  // @ts-expect-error petId is a number
  await rest.GET('/pets/{petId}', { params: { path: { petId: 'one' } } });
  // @ts-expect-error the body is required
  await rest.POST('/pets', {});
}
`;

/** One real call each way, run by node from the front-end folder, so `exports` is resolved at run time too. */
const CALL = `
import { createPetstoreRestClient, createPetstoreTrpcClient } from 'petstore-service/client';

const { PETSTORE_ORIGIN: origin, PETSTORE_KEY: apiKey } = process.env;
const trpc = createPetstoreTrpcClient({ url: origin + '/trpc', apiKey });
const rest = createPetstoreRestClient({ baseUrl: origin + '/v1', apiKey });
const pet = await trpc.pets.create.mutate({ name: 'Packaged', categoryId: 5 });
const fetched = await rest.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
process.stdout.write(JSON.stringify({ pet, fetched: fetched.data }));
`;

// Nothing here depends on the database, and building the package is most of this file's time:
// it runs once per test run, in the embedded database's project.
describeOnEmbedded(
  'petstore-service/client in a front-end that depends on the package by path',
  () => {
    const server = useTestServer();
    let built: FrontendProject | undefined;
    const project = () => {
      if (!built) throw new Error('the front-end project was not built');
      return built;
    };

    // tsc's build, then the router type written out: over two minutes on a loaded machine.
    beforeAll(async () => {
      built = await createFrontendProject();
      await built.write('src/app.ts', APP);
      await built.write('src/call.js', CALL);
      await built.write('tsconfig.json', frontendTsconfig('NodeNext', ['src/app.ts']));
      await built.write('tsconfig.bundler.json', frontendTsconfig('Bundler', ['src/app.ts']));
    }, 300_000);

    afterAll(() => built?.remove());

    it.each(['tsconfig.json', 'tsconfig.bundler.json'])(
      'type-checks what must compile, and refuses what must not (%s)',
      { timeout: 120_000 },
      async (tsconfig) => {
        const check = await tsc(['-p', tsconfig, '--listFiles'], project().frontendDir);
        expect(check.output).not.toMatch(/error TS/);
        expect(check.code).toBe(0);
        const files = check.output
          .split('\n')
          .filter((line) => line.startsWith(project().serviceDir));
        // Through package.json's exports to the built declarations, never to the sources, and
        // to no declaration of the server's: those reach into its packages.
        expect(files).toContain(join(project().serviceDir, 'dist/client/index.d.ts'));
        expect(files.filter((file) => !file.endsWith('.d.ts'))).toEqual([]);
        expect(files.filter((file) => file.includes('/dist/server/'))).toEqual([]);
        const packages = new Set(
          check.output
            .split('\n')
            .map((line) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line)?.[1])
            .filter((name) => name !== undefined),
        );
        expect([...packages].sort()).toEqual([
          '@trpc/client',
          '@trpc/server',
          'openapi-fetch',
          'openapi-typescript-helpers',
          'typescript',
        ]);
      },
    );

    it('ships JavaScript that imports no server code, only the two client libraries', async () => {
      const dir = join(project().serviceDir, 'dist/client');
      const scripts = (await readdir(dir, { recursive: true })).filter((file) =>
        file.endsWith('.js'),
      );
      expect(scripts).toContain('index.js');
      for (const file of scripts) {
        const imports = [...(await readFile(join(dir, file), 'utf8')).matchAll(/from '([^']+)'/g)];
        for (const [, specifier] of imports) {
          expect(specifier).toMatch(/^(\.\/[\w/-]+\.js|@trpc\/client|openapi-fetch)$/);
        }
      }
    });

    it("runs the README's client snippet as written, its subscription included", async () => {
      const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
      const snippet = /```ts\n([^`]*from 'petstore-service\/client'[^`]*)```/.exec(readme)?.[1];
      if (snippet === undefined) throw new Error('README.md has no client snippet');
      // The front-end installs eventsource itself; here it is the repository's copy.
      await symlink(
        join(ROOT, 'node_modules/eventsource'),
        join(project().frontendDir, 'node_modules/eventsource'),
        'dir',
      );
      await project().write(
        'src/readme.ts',
        snippet.replaceAll('http://127.0.0.1:3000', server.origin),
      );
      const child = spawn(process.execPath, ['--import', TSX, 'src/readme.ts'], {
        cwd: project().frontendDir,
        env: { PATH: process.env.PATH, PETSTORE_KEY: TEST_KEY },
      });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      try {
        // The subscription starts with the next change and the snippet prints nothing when it
        // has started, so each try makes a change until one arrives (or the snippet exits).
        await vi.waitFor(
          async () => {
            if (output.includes('pet.created') || child.exitCode !== null) return;
            await fetch(`${server.origin}/v1/pets`, {
              method: 'POST',
              headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
              body: JSON.stringify({ name: 'Followed', categoryId: 4 }),
            });
            throw new Error(`no event yet; the snippet wrote: ${output}`);
          },
          { timeout: 30_000, interval: 250 },
        );
        expect(output).toMatch(/pet\.created \{[^}]*name: 'Followed'/);
      } finally {
        child.kill();
      }
    });

    it('calls a running service over tRPC and REST from node', async () => {
      const call = await run(['src/call.js'], {
        cwd: project().frontendDir,
        env: { PATH: process.env.PATH, PETSTORE_ORIGIN: server.origin, PETSTORE_KEY: TEST_KEY },
        timeoutMs: 30_000,
      });
      expect(call.code, call.output).toBe(0);
      const { pet, fetched } = JSON.parse(call.output) as { pet: { id: number }; fetched: unknown };
      expect(pet).toMatchObject({ name: 'Packaged', categoryId: 5, status: 'available' });
      expect(fetched).toEqual(pet);
    });
  },
);
