import { z } from 'zod';
import type { ApiKeyScope } from '../../db/queries/api-keys.js';
import type { CursorScope } from './cursor.js';
import type { OperationContext } from './context.js';
import { defineQuery, type Operation, type RestBinding } from './define.js';

/** What every paged list takes besides its filters. */
export interface PageQuery {
  limit: number;
  cursor?: string | undefined;
}

/** The filters of a query, as a cursor is bound to them and its `next` link repeats them. */
type Filters = Record<string, string | number | undefined>;

export interface PagedListDefinition<
  I extends z.ZodType<PageQuery & Filters>,
  Item extends z.ZodType,
  Row,
> {
  scope: ApiKeyScope;
  /** A hot standby may serve it (Operation's `replicaRead`). */
  replicaRead?: boolean;
  /** Its filters, `limit` and `cursor`; on REST its path parameters and query. */
  input: I;
  item: Item;
  /** The REST list; its `Link` response header is the list's own. */
  rest: Omit<RestBinding, 'responseHeaders'>;
  cursor: {
    /** Covered by the MAC: a cursor of one list is not valid for another. */
    tag: string;
    /**
     * The filters a cursor holds, compared on every page; by default `key=value` of each filter
     * given, in the input's order (`status=placed&petId=3`), or null for none.
     */
    bind?: (query: z.output<I>) => string | null;
    describe?: CursorScope['describe'];
  };
  /**
   * The query as the list reads it, binds its cursors and links its next page: `id=3,1,3` and
   * `id=1,3` are the same filter.
   */
  canonical?: (query: z.output<I>) => z.output<I>;
  /**
   * One keyset page in the list's order: at most `limit` rows from the position after `after`
   * (undefined on the first page), so that a walk visits every row once.
   */
  read: (
    ctx: OperationContext,
    query: z.output<I>,
    page: { after: number | undefined; limit: number },
  ) => Promise<Row[]>;
  /** The position a row holds in the list's order, which the next page starts after. */
  positionOf: (row: Row) => number;
  toItem: (row: Row) => z.input<Item>;
}

const pageSchemaOf = <Item extends z.ZodType>(item: Item) =>
  z.object({
    items: z.array(item),
    /** null on the last page, which is what infinite-query clients expect. */
    nextCursor: z.string().nullable(),
  });

export interface PagedList<I extends z.ZodType, Item extends z.ZodType> {
  /** The items alone; REST's and tRPC's list, with the next page in the `Link` header. */
  list: Operation<I, z.ZodArray<Item>, 'query'>;
  /** `{ items, nextCursor }` for tRPC clients (`useInfiniteQuery`); the same pages and cursors. */
  page: Operation<I, ReturnType<typeof pageSchemaOf<Item>>, 'query'>;
}

const LINK_HEADER = (path: string) =>
  z.object({
    Link: z
      .string()
      .optional()
      .meta({
        description: `RFC 8288 link to the next page, \`<{base}${path}?limit=N[&filter=value…]&cursor=C>; rel="next"\`, repeating this request's filters; absent on the last page.`,
      }),
  });

const NOT_FILTERS = new Set(['limit', 'cursor']);

function filtersOf(query: PageQuery & Filters): [string, string][] {
  return Object.entries(query).flatMap(([key, value]) =>
    NOT_FILTERS.has(key) || value === undefined ? [] : [[key, String(value)] as [string, string]],
  );
}

function boundByDefault(query: PageQuery & Filters): string | null {
  const filters = filtersOf(query).map(([key, value]) => `${key}=${encodeURIComponent(value)}`);
  return filters.length > 0 ? filters.join('&') : null;
}

const TEMPLATE_PARAM = /\{([^}]+)\}/g;

/**
 * RFC 8288 `Link` to the next page: the binding's path with the query's path parameters, then
 * `limit`, the other filters in the input's order and the cursor (URL-safe as it is).
 */
export function nextPageLink(
  baseUrl: string,
  path: string,
  query: PageQuery & Filters,
  cursor: string,
): string {
  const inPath = new Set<string>();
  const resolved = path.replace(TEMPLATE_PARAM, (_, name: string) => {
    inPath.add(name);
    return encodeURIComponent(String(query[name]));
  });
  const search = new URLSearchParams({ limit: String(query.limit) });
  for (const [key, value] of filtersOf(query)) if (!inPath.has(key)) search.append(key, value);
  search.append('cursor', cursor);
  return `<${baseUrl}${resolved}?${search.toString()}>; rel="next"`;
}

/**
 * A paged list, defined once: its filters, items, order and read. From it come the list (REST,
 * tRPC) and its page form (tRPC), their signed cursors and the `next` link. One row more than
 * asked for is read to learn whether another page exists, so the last page never links to an
 * empty one.
 */
export function definePagedList<
  I extends z.ZodType<PageQuery & Filters>,
  Item extends z.ZodType,
  Row,
>(definition: PagedListDefinition<I, Item, Row>): PagedList<I, Item> {
  const { cursor: binding, read, positionOf, toItem } = definition;
  const canonical = definition.canonical ?? ((query: z.output<I>) => query);
  const bind = binding.bind ?? boundByDefault;
  const scope: CursorScope = {
    tag: binding.tag,
    describe: binding.describe ?? ((filter) => filter ?? 'no filter'),
  };

  const readPage = async (ctx: OperationContext, input: z.output<I>) => {
    const query = canonical(input);
    const { limit, cursor } = query;
    // Only a cursor read or issued needs the binding: a first page that is also the last
    // computes no digest.
    let bound: string | null | undefined;
    const filter = () => (bound === undefined ? (bound = bind(query)) : bound);
    const after = cursor === undefined ? undefined : ctx.cursors.decode(scope, cursor, filter());
    const rows = await read(ctx, query, { after, limit: limit + 1 });
    const kept = rows.slice(0, limit);
    const last = kept.at(-1);
    const nextCursor =
      rows.length > limit && last ? ctx.cursors.encode(scope, positionOf(last), filter()) : null;
    return { query, items: kept.map(toItem), nextCursor };
  };

  const rest: RestBinding = {
    ...definition.rest,
    responseHeaders: LINK_HEADER(definition.rest.path),
  };
  return {
    list: defineQuery({
      scope: definition.scope,
      ...(definition.replicaRead === true && { replicaRead: true }),
      input: definition.input,
      output: z.array(definition.item),
      rest,
      handler: async (ctx, input) => {
        const { query, items, nextCursor } = await readPage(ctx, input);
        if (nextCursor) {
          ctx.responseHeaders.link = nextPageLink(ctx.baseUrl, rest.path, query, nextCursor);
        }
        return items;
      },
    }),
    page: defineQuery({
      scope: definition.scope,
      ...(definition.replicaRead === true && { replicaRead: true }),
      input: definition.input,
      output: pageSchemaOf(definition.item),
      handler: async (ctx, input) => {
        const { items, nextCursor } = await readPage(ctx, input);
        return { items, nextCursor };
      },
    }),
  };
}

/** A paged list's two registry entries: `list` and `listPage`, `history` and `historyPage`. */
export function pagedEntries<N extends string, L, P>(
  name: N,
  { list, page }: { list: L; page: P },
): Record<N, L> & Record<`${N}Page`, P> {
  return { [name]: list, [`${name}Page`]: page } as Record<N, L> & Record<`${N}Page`, P>;
}
