import { parseArgs } from 'node:util';
import type { Database } from '../../../db/client.js';
import { listApiKeys, revokeApiKey, type ApiKeyScope } from '../../../db/queries/api-keys.js';
import { KEY_CACHE_TTL_MS } from '../../domain/auth/authenticator.js';
import { issueApiKey } from '../../domain/auth/issue-api-key.js';
import { formatKeyTable } from './key-table.js';

export interface CliDeps {
  /** Opens the service's database for one command (migrated), and closes it afterwards. */
  withDatabase<T>(use: (db: Database) => Promise<T>): Promise<T>;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** 0: done; 1: the command could not do what was asked; 2: the command line itself is wrong. */
export type ExitCode = 0 | 1 | 2;

/** A command line, parsed: what it does, and whether doing it needs the database. */
export interface KeysCommand {
  /** True for create, list and revoke written correctly; false for help and usage errors. */
  readonly needsDatabase: boolean;
  run(deps: CliDeps): Promise<ExitCode>;
}

class UsageError extends Error {}

const USAGE = {
  main: `Usage: npm run keys -- <command> [options]

Issues, lists and revokes the API keys of the service's database
(DATABASE_URL, or the embedded database in PGLITE_DIR: through the service
when it runs there, else on the data folder itself).

Commands:
  create --name <name> [--scope read|write] [--json]   issue a key; its secret is shown only once
  list [--json]                                       every key, without secrets
  revoke <id>                                         stop a key working (within 1 s everywhere)

Run "npm run keys -- <command> --help" for a command's options.
`,
  create: `Usage: npm run keys -- create --name <name> [--scope read|write] [--json]

Issues a new API key and prints it. The key is shown only this once: the database keeps
its hash, never the key.

Options:
  --name <name>         who or what the key is for (1..200 characters), shown in listings
  --scope read|write    read: listing and reading only; write: also creating (default: write)
  --json                print {"id","key","name","scope"} as JSON, for scripts
  -h, --help            show this help
`,
  list: `Usage: npm run keys -- list [--json]

Lists every API key, newest last: id, name, scope, creation, last use, revocation.
Secrets and hashes are never shown. Last use is recorded at most once a minute per key.

Options:
  --json        print a JSON array, for scripts
  -h, --help    show this help
`,
  revoke: `Usage: npm run keys -- revoke <id>

Revokes the key with this id (the part after "psk_" in the key, as shown by list).
Running servers refuse it within ${KEY_CACHE_TTL_MS / 1000} s.

Options:
  -h, --help    show this help
`,
};

const HELP = { help: { type: 'boolean', short: 'h' } } as const;
const MAX_NAME_LENGTH = 200;

function parse<R>(parseCommandLine: () => R): R {
  try {
    return parseCommandLine();
  } catch (error) {
    // parseArgs explains itself ("Unknown option '--nme'"); anything else is a real fault.
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw error;
  }
}

function printing(to: 'stdout' | 'stderr', text: string, code: ExitCode): KeysCommand {
  return {
    needsDatabase: false,
    run: (deps) => {
      deps[to](text);
      return Promise.resolve(code);
    },
  };
}

const help = (topic: keyof typeof USAGE) => printing('stdout', USAGE[topic], 0);

function create(args: string[]): KeysCommand {
  const { values } = parse(() =>
    parseArgs({
      args,
      options: {
        ...HELP,
        name: { type: 'string' },
        scope: { type: 'string', default: 'write' },
        json: { type: 'boolean', default: false },
      },
    }),
  );
  if (values.help) return help('create');
  const name = values.name?.trim();
  if (!name) throw new UsageError('create needs --name <name>');
  if (name.length > MAX_NAME_LENGTH) {
    throw new UsageError(`--name is ${name.length} characters long; at most ${MAX_NAME_LENGTH}`);
  }
  if (values.scope !== 'read' && values.scope !== 'write') {
    throw new UsageError(`--scope must be read or write, not "${values.scope}"`);
  }
  const scope: ApiKeyScope = values.scope;
  return {
    needsDatabase: true,
    run: async (deps) => {
      const issued = await deps.withDatabase((db) => issueApiKey(db, { name, scope }));
      if (values.json) {
        deps.stdout(`${JSON.stringify(issued)}\n`);
      } else {
        deps.stdout(
          `Issued API key ${issued.id} ("${issued.name}", scope ${issued.scope}).\n` +
            `It is shown only this once; store it now:\n\n    ${issued.key}\n\n` +
            `Call the service with:  Authorization: Bearer <key>\n`,
        );
      }
      return 0;
    },
  };
}

function list(args: string[]): KeysCommand {
  const { values } = parse(() =>
    parseArgs({ args, options: { ...HELP, json: { type: 'boolean', default: false } } }),
  );
  if (values.help) return help('list');
  return {
    needsDatabase: true,
    run: async (deps) => {
      const keys = await deps.withDatabase((db) => listApiKeys(db));
      deps.stdout(values.json ? `${JSON.stringify(keys)}\n` : formatKeyTable(keys));
      return 0;
    },
  };
}

function revoke(args: string[]): KeysCommand {
  const { values, positionals } = parse(() =>
    parseArgs({ args, options: HELP, allowPositionals: true }),
  );
  if (values.help) return help('revoke');
  const [id, ...extra] = positionals;
  if (!id) throw new UsageError('revoke needs the id of the key to revoke');
  if (extra.length > 0)
    throw new UsageError(`revoke takes one id; unexpected "${extra.join(' ')}"`);
  if (/^env-\d+$/.test(id)) {
    return printing(
      'stderr',
      `Key ${id} comes from the API_KEYS setting; remove it there and restart.\n`,
      1,
    );
  }
  return {
    needsDatabase: true,
    run: async (deps) => {
      if (!(await deps.withDatabase((db) => revokeApiKey(db, id)))) {
        deps.stderr(`No active API key has id "${id}" (unknown, or already revoked).\n`);
        return 1;
      }
      deps.stdout(
        `Revoked API key ${id}. Running servers refuse it within ${KEY_CACHE_TTL_MS / 1000} s.\n`,
      );
      return 0;
    },
  };
}

const COMMANDS = { create, list, revoke } as const;

/** The whole command line, minus the program: `['create', '--name', 'shop front']`. */
export function parseKeysCli(argv: readonly string[]): KeysCommand {
  const [command, ...args] = argv;
  if (command === '--help' || command === '-h' || command === 'help') return help('main');
  const parseCommand =
    command !== undefined && Object.hasOwn(COMMANDS, command)
      ? COMMANDS[command as keyof typeof COMMANDS]
      : undefined;
  try {
    if (!parseCommand) {
      throw new UsageError(
        command === undefined ? 'No command given' : `Unknown command "${command}"`,
      );
    }
    return parseCommand(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const topic = parseCommand ? (command as keyof typeof USAGE) : 'main';
    return printing('stderr', `Error: ${error.message}\n\n${USAGE[topic]}`, 2);
  }
}

export function runKeysCli(argv: readonly string[], deps: CliDeps): Promise<ExitCode> {
  return parseKeysCli(argv).run(deps);
}

export interface CliRun {
  code: ExitCode;
  stdout: string;
  stderr: string;
}

/** The command line with its output collected, for a caller that passes it on. */
export async function runKeysCliCollected(
  argv: readonly string[],
  withDatabase: CliDeps['withDatabase'],
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runKeysCli(argv, {
    withDatabase,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}
