import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';

/**
 * Writes dist/client/router.d.ts: the router type a client needs (each procedure's kind, input,
 * output and error shape), spelt out by TypeScript's own checker, so that it names no file of
 * the server and none of the server's packages, only @trpc/server, which @trpc/client brings.
 * The context and metadata types become `object`: a client never reads either.
 */
const { values } = parseArgs({ options: { 'out-dir': { type: 'string', default: 'dist' } } });
const outDir = values['out-dir'];

const SOURCE = 'client/router.ts';
const program = ts.createProgram([SOURCE], {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2023,
  strict: true,
  skipLibCheck: true,
  types: ['node'],
});
const checker = program.getTypeChecker();
const source = program.getSourceFile(SOURCE);
const moduleSymbol = source && checker.getSymbolAtLocation(source);
const exported =
  moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === 'AppRouter');
if (!exported) throw new Error(`${SOURCE} exports no AppRouter`);
const router = checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(exported));

function member(type: ts.Type, path: string[]): ts.Type {
  return path.reduce((current, name) => {
    const property = checker.getPropertyOfType(current, name);
    if (!property) throw new Error(`the router type has no ${path.join('.')}`);
    return checker.getTypeOfSymbol(property);
  }, type);
}

// Flags combine by bit: the union is a number typed as the enum.
const FLAGS = (ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.InTypeAlias) as ts.TypeFormatFlags;
const text = (type: ts.Type) => checker.typeToString(type, undefined, FLAGS);

const isLib = (type: ts.Type) =>
  (type.aliasSymbol ?? type.getSymbol())?.declarations?.some((declaration) =>
    program.isSourceFileDefaultLibrary(declaration.getSourceFile()),
  ) ?? false;

/**
 * A type spelt out to its members: the checker prints a named interface or alias by its name
 * (`EventBody`, `TrackedData<...>`), which the declaration could not import. The standard
 * library's types (arrays, AsyncIterable) keep their names.
 */
function structural(type: ts.Type, outer: readonly ts.Type[] = []): string {
  if (outer.includes(type)) throw new Error(`${text(type)} is recursive; spell it out by hand`);
  const inner = [...outer, type];
  if (type.isUnion()) return type.types.map((member) => structural(member, inner)).join(' | ');
  if (!(type.flags & ts.TypeFlags.Object) || !type.getSymbol()) return text(type);
  if (isLib(type)) {
    const name = type.getSymbol()?.name ?? text(type);
    const args = checker.getTypeArguments(type as ts.TypeReference);
    if (name === 'Array' && args[0]) return `(${structural(args[0], inner)})[]`;
    return args.length
      ? `${name}<${args.map((arg) => structural(arg, inner)).join(', ')}>`
      : text(type);
  }
  const members = checker.getPropertiesOfType(type).map((property) => {
    const optional = property.flags & ts.SymbolFlags.Optional ? '?' : '';
    const value = structural(checker.getTypeOfSymbol(property), inner);
    return `${JSON.stringify(property.name)}${optional}: ${value};`;
  });
  const indexes = checker
    .getIndexInfosOfType(type)
    .map((info) => `[key: ${text(info.keyType)}]: ${structural(info.type, inner)};`);
  return `{ ${[...indexes, ...members].join(' ')} }`;
}

const KINDS: Record<string, string> = {
  '"query"': 'TRPCQueryProcedure',
  '"mutation"': 'TRPCMutationProcedure',
  '"subscription"': 'TRPCSubscriptionProcedure',
};

function procedure(type: ts.Type): string {
  const kind = KINDS[text(member(type, ['_def', 'type']))];
  if (!kind) throw new Error(`unknown procedure kind ${text(member(type, ['_def', 'type']))}`);
  const types = (name: string) => structural(member(type, ['_def', '$types', name]));
  return `${kind}<{ input: ${types('input')}; output: ${types('output')}; errorShape: ${types('errorShape')}; meta: object }>`;
}

function record(type: ts.Type): string {
  const entries = checker.getPropertiesOfType(type).map((property) => {
    const value = checker.getTypeOfSymbol(property);
    const isProcedure = checker.getPropertyOfType(value, '_def') !== undefined;
    return `${JSON.stringify(property.name)}: ${isProcedure ? procedure(value) : record(value)};`;
  });
  return `{ ${entries.join(' ')} }`;
}

const root = (name: string) => structural(member(router, ['_def', '_config', '$types', name]));
const declaration = `import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure, TRPCSubscriptionProcedure } from '@trpc/server';
/** The service's router, as a client sees it: written out by scripts/client-types.ts. */
export type AppRouter = TRPCBuiltRouter<{ ctx: object; meta: object; errorShape: ${root('errorShape')}; transformer: ${root('transformer')} }, ${record(member(router, ['_def', 'record']))}>;
`;
await writeFile(join(outDir, 'client/router.d.ts'), declaration);
