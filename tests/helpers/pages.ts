import { expect } from 'vitest';
import type { ApiClient, ApiResponse } from './http.js';

/** The `next` link of a list's answer, checked to be exactly `<url>; rel="next"`; else undefined. */
export function nextLink(headers: Headers): URL | undefined {
  const link = headers.get('link');
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, `Link ${link}`).not.toBeNull();
  return new URL(match?.[1] ?? '');
}

export interface Walk<T> {
  /** Every item, in the order the pages gave them. */
  items: T[];
  pages: number;
}

/**
 * Follows a REST list's `next` links from `first` until there is none, each page answered 200. `onPage` sees each page and its link before the next is read
 * (to check it, or to change the data between pages).
 */
export async function walkLinks<T>(
  api: ApiClient,
  first: string,
  onPage: (page: ApiResponse<T[]>, next: URL | undefined, seen: T[]) => unknown = () => undefined,
): Promise<Walk<T>> {
  const items: T[] = [];
  let pages = 0;
  for (let path: string | undefined = first; path !== undefined; pages += 1) {
    const page: ApiResponse<T[]> = await api<T[]>('GET', path);
    expect(page.status, path).toBe(200);
    const next = nextLink(page.headers);
    items.push(...page.body);
    await onPage(page, next, [...items]);
    path = next && `${next.pathname}${next.search}`;
  }
  return { items, pages };
}

/** Calls a tRPC page form with each `nextCursor` until it is null. */
export async function walkCursors<T>(
  pageAt: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
): Promise<Walk<T>> {
  const items: T[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = await pageAt(cursor);
    pages += 1;
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return { items, pages };
}
