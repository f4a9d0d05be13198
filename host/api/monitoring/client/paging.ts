// Paging helpers for list operations that take page_size / page_number.
export interface PageQuery {
  page_size?: number;
  page_number?: number;
}

/**
 * Every item of a paged list, page by page: fetches page 0, 1, … until a page comes back
 * shorter than page_size.
 */
export async function* paginate<T, Q extends PageQuery>(
  list: (query: Q) => Promise<T[]>,
  query: Q,
  pageSize = query.page_size ?? 100,
): AsyncGenerator<T, void, undefined> {
  for (let pageNumber = query.page_number ?? 0; ; pageNumber++) {
    const items = await list({ ...query, page_size: pageSize, page_number: pageNumber });
    yield* items;
    if (items.length < pageSize) return;
  }
}

/** All items of a paged list in one array. */
export async function listAll<T, Q extends PageQuery>(list: (query: Q) => Promise<T[]>, query: Q, pageSize?: number): Promise<T[]> {
  const all: T[] = [];
  for await (const item of paginate(list, query, pageSize)) all.push(item);
  return all;
}
