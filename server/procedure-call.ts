import { TRPCError, type AnyTRPCProcedure, type AnyTRPCRouter } from '@trpc/server';
import {
  callProcedure,
  getParseFn,
  getTRPCErrorFromUnknown,
  type ParseFn,
  type Parser,
} from '@trpc/server/unstable-core-do-not-import';
import type { ApiKeyScope } from '../db/queries/api-keys.js';
import type { Context } from './context.js';
import { authorize, guardScopes, withinDeadline, type CallResult } from './trpc.js';

/** One call of a query or mutation, as both HTTP surfaces make it. */
export interface ProcedureCall {
  path: string;
  type: 'query' | 'mutation';
  ctx: Context;
  getRawInput: () => Promise<unknown>;
}

type Resolver = (options: Record<string, unknown>) => Promise<unknown>;

/** What tRPC keeps on a built procedure at runtime; its public type shows less. */
interface RuntimeDefinition {
  middlewares: (object & { _type?: string })[];
  inputs: Parser[];
  output?: Parser;
  resolver?: Resolver;
  meta: unknown;
  type: string;
}

/** A procedure built as guard > .input() > .output() > resolver, taken apart once. */
interface FusedProcedure {
  type: string;
  scope: ApiKeyScope;
  parseInput: ParseFn<unknown>;
  parseOutput: ParseFn<unknown>;
  resolver: Resolver;
  meta: unknown;
}

/**
 * The parts of a procedure with exactly the shape server/trpc.ts gives every one of ours, or
 * undefined for any other shape, which then goes through tRPC's own runner.
 */
function fuse(procedure: AnyTRPCProcedure): FusedProcedure | undefined {
  const def = procedure._def as unknown as RuntimeDefinition;
  const [guard, input, output, resolve, ...more] = def.middlewares;
  const scope = guard && guardScopes.get(guard);
  const [inputParser, ...moreInputs] = def.inputs;
  const shaped =
    input?._type === 'input' && output?._type === 'output' && resolve?._type === undefined;
  if (!scope || !shaped || more.length || moreInputs.length || !inputParser) return undefined;
  if (!def.output || !def.resolver) return undefined;
  return {
    type: def.type,
    scope,
    parseInput: getParseFn(inputParser),
    parseOutput: getParseFn(def.output),
    resolver: def.resolver,
    meta: def.meta,
  };
}

/**
 * The call as tRPC's runner makes it, step for step, in one async function instead of four
 * nested middleware levels: GET /v1/pets/{petId} spent 15-27 µs of CPU per request in those
 * levels (an interleaved A/B against a build that called the query directly). Each failure
 * becomes the TRPCError the runner would make of it, and the guard's own functions decide the
 * rest, so tests/router/procedure-call.test.ts can hold both paths to the same answers.
 */
async function settle(fused: FusedProcedure, call: ProcedureCall, ctx: Context) {
  try {
    const rawInput = await call.getRawInput();
    let input: unknown;
    try {
      input = await fused.parseInput(rawInput);
    } catch (cause) {
      throw new TRPCError({ code: 'BAD_REQUEST', cause });
    }
    const data = await fused.resolver({
      ctx,
      input,
      path: call.path,
      type: call.type,
      meta: fused.meta,
      getRawInput: call.getRawInput,
      signal: undefined,
      batchIndex: 0,
    });
    try {
      return { ok: true, data: await fused.parseOutput(data) } satisfies CallResult;
    } catch (cause) {
      throw new TRPCError({
        message: 'Output validation failed',
        code: 'INTERNAL_SERVER_ERROR',
        cause,
      });
    }
  } catch (cause) {
    return { ok: false, error: getTRPCErrorFromUnknown(cause) } satisfies CallResult;
  }
}

async function callFused(fused: FusedProcedure, call: ProcedureCall): Promise<unknown> {
  const principal = authorize(call.ctx.principal, fused.scope);
  const result = await withinDeadline(settle(fused, call, { ...call.ctx, principal }));
  if (!result.ok) throw result.error;
  return result.data;
}

/**
 * Calls a router's procedures for the HTTP surfaces: fused where the procedure has our shape,
 * through tRPC's callProcedure otherwise (and always for a path or type it does not serve, so
 * that tRPC answers those).
 */
export function createProcedureCaller(router: AnyTRPCRouter) {
  const procedures = router._def.procedures as Partial<Record<string, AnyTRPCProcedure>>;
  const fused = new Map<string, FusedProcedure>();
  for (const [path, procedure] of Object.entries(procedures)) {
    const parts = procedure && fuse(procedure);
    if (parts) fused.set(path, parts);
  }
  const call = (options: ProcedureCall): Promise<unknown> => {
    const parts = fused.get(options.path);
    if (parts?.type === options.type) return callFused(parts, options);
    return callProcedure({ router, ...options, signal: undefined, batchIndex: 0 });
  };
  return { call, fusedPaths: () => [...fused.keys()] };
}
