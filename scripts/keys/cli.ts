import { parseArgs } from 'node:util';
import type { Database } from '../../db/client.js';
import { listApiKeys, revokeApiKey, type ApiKeyScope } from '../../db/queries/api-keys.js';
import { KEY_CACHE_TTL_MS } from '../../server/auth/authenticator.js';
import { issueApiKey } from '../../server/auth/issue-api-key.js';
import { formatKeyTable } from './format.js';

export interface CliDeps {
  /** Opens the service's database for one command (migrated), and closes it afterwards. */
  withDatabase<T>(use: (db: Database) => Promise<T>): Promise<T>;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** 0: done; 1: the command could not do what was asked; 2: the command line itself is wrong. */
export type ExitCode = 0 | 1 | 2;

class UsageError extends Error {}

const USAGE = {
  main: `Usage: npm run keys -- <command> [options]

Issues, lists and revokes the API keys of the service's database
(DATABASE_URL, or the embedded database in PGLITE_DIR).

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

async function create(args: string[], deps: CliDeps): Promise<ExitCode> {
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
  if (values.help) return help('create', deps);
  const name = values.name?.trim();
  if (!name) throw new UsageError('create needs --name <name>');
  if (name.length > MAX_NAME_LENGTH) {
    throw new UsageError(`--name is ${name.length} characters long; at most ${MAX_NAME_LENGTH}`);
  }
  if (values.scope !== 'read' && values.scope !== 'write') {
    throw new UsageError(`--scope must be read or write, not "${values.scope}"`);
  }
  const scope: ApiKeyScope = values.scope;
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
}

async function list(args: string[], deps: CliDeps): Promise<ExitCode> {
  const { values } = parse(() =>
    parseArgs({ args, options: { ...HELP, json: { type: 'boolean', default: false } } }),
  );
  if (values.help) return help('list', deps);
  const keys = await deps.withDatabase((db) => listApiKeys(db));
  deps.stdout(values.json ? `${JSON.stringify(keys)}\n` : formatKeyTable(keys));
  return 0;
}

async function revoke(args: string[], deps: CliDeps): Promise<ExitCode> {
  const { values, positionals } = parse(() =>
    parseArgs({ args, options: HELP, allowPositionals: true }),
  );
  if (values.help) return help('revoke', deps);
  const [id, ...extra] = positionals;
  if (!id) throw new UsageError('revoke needs the id of the key to revoke');
  if (extra.length > 0)
    throw new UsageError(`revoke takes one id; unexpected "${extra.join(' ')}"`);
  if (/^env-\d+$/.test(id)) {
    deps.stderr(`Key ${id} comes from the API_KEYS setting; remove it there and restart.\n`);
    return 1;
  }
  if (!(await deps.withDatabase((db) => revokeApiKey(db, id)))) {
    deps.stderr(`No active API key has id "${id}" (unknown, or already revoked).\n`);
    return 1;
  }
  deps.stdout(
    `Revoked API key ${id}. Running servers refuse it within ${KEY_CACHE_TTL_MS / 1000} s.\n`,
  );
  return 0;
}

function help(topic: keyof typeof USAGE, deps: CliDeps): ExitCode {
  deps.stdout(USAGE[topic]);
  return 0;
}

const COMMANDS = { create, list, revoke } as const;

/** The whole command line, minus the program: `['create', '--name', 'shop front']`. */
export async function runKeysCli(argv: readonly string[], deps: CliDeps): Promise<ExitCode> {
  const [command, ...args] = argv;
  if (command === '--help' || command === '-h' || command === 'help') return help('main', deps);
  const run =
    command !== undefined && Object.hasOwn(COMMANDS, command)
      ? COMMANDS[command as keyof typeof COMMANDS]
      : undefined;
  try {
    if (!run) {
      throw new UsageError(
        command === undefined ? 'No command given' : `Unknown command "${command}"`,
      );
    }
    return await run(args, deps);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const topic = run ? (command as keyof typeof USAGE) : 'main';
    deps.stderr(`Error: ${error.message}\n\n${USAGE[topic]}`);
    return 2;
  }
}
