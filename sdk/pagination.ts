/**
 * Pages you can `await` (one page) or `for await` (every item across pages).
 *
 *   const page = await client.groups.list({ descendantsOf: org, pageSize: 200 });
 *   for await (const group of client.groups.list({ childrenOf: org })) { ... }
 *
 * Nothing is fetched until the PagePromise is awaited or iterated; awaiting and then iterating the same
 * PagePromise fetches the first page once. Iteration follows nextPageToken and stops on an empty or absent token.
 */
import { RequestError } from "./errors";
import type { ListPage } from "./schemas/common";

export type { ListPage } from "./schemas/common";

/** Fetches the page that starts at `pageToken` (undefined: the first page). */
export type PageFetcher<T> = (pageToken: string | undefined) => Promise<ListPage<T>>;

export class PagePromise<T> implements PromiseLike<ListPage<T>>, AsyncIterable<T> {
  private first: Promise<ListPage<T>> | undefined;

  constructor(
    private readonly fetchPage: PageFetcher<T>,
    private readonly initialPageToken?: string,
  ) {}

  private firstPage(): Promise<ListPage<T>> {
    this.first ??= this.fetchPage(this.initialPageToken);
    return this.first;
  }

  then<R1 = ListPage<T>, R2 = never>(
    onfulfilled?: ((page: ListPage<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<ListPage<T> | R> {
    return this.firstPage().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<ListPage<T>> {
    return this.firstPage().finally(onfinally);
  }

  /** Every page in turn, starting with the first. */
  async *pages(): AsyncGenerator<ListPage<T>, void, undefined> {
    let page = await this.firstPage();
    const seen = new Set<string>();
    for (;;) {
      yield page;
      const token = page.nextPageToken;
      if (!token) return;
      // A service that hands back a token it already gave would make this loop forever.
      if (seen.has(token))
        throw new RequestError(`pagination stopped: the service returned page token twice`);
      seen.add(token);
      page = await this.fetchPage(token);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** Every item across pages, in one array. */
  async all(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
