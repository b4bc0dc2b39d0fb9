/**
 * The two shapes of data source, written once: a **list** with filters (getRoles, getRepos, getTags, ...) and a
 * **lookup** of one object by uid or otherwise (getGroup, getRole, getIdentity, getRepo). Each runs the same way:
 * arguments validated before any API call (the error names the field and the rule), a client built for the
 * profile from the program's config (./program-client), every page read, errors translated. A data source module
 * keeps its declaration (token, summary, argument and result schemas, with their docs) and only what differs: the
 * list request its arguments make, or where a lookup searches and what its result adds.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { PlatformClient } from "../../sdk";
import { declareDataSource, type DataSourceDeclaration } from "./declaration";
import { DATA_SOURCE_PAGE_SIZE, collect, parseArgs, theOnlyMatch, withProgramClient } from "./program-client";

export { DATA_SOURCE_PAGE_SIZE, ProfileArgsSchema } from "./program-client";

const PAGE = { pageSize: DATA_SOURCE_PAGE_SIZE };

/** The function a program calls: `getRoles(args, opts)`. */
export type DataSourceFunction<Args, Result> = (args: Args, opts?: pulumi.InvokeOptions) => Promise<Result>;

/** The parsed arguments a data source's own code sees: the profile is the kit's. */
type Parsed<A extends z.ZodType> = Omit<z.output<A>, "profile">;

/** A data source's token, summary and arguments (an object schema that spreads ProfileArgsSchema's shape). */
interface DataSourceHead<A extends z.ZodType> {
  /** e.g. "platform:iam:getRoles". */
  token: string;
  summary: string;
  args: A;
}

export interface ListSpec<
  A extends z.ZodType,
  K extends string,
  I extends z.ZodType,
> extends DataSourceHead<A> {
  /** The result's one member, e.g. "roles", with its item's schema and its doc ("Every matching role."). */
  key: K;
  item: I;
  doc: string;
  /** The list request the arguments make; `page` is the page size every data source reads with. */
  list: (client: PlatformClient, args: Parsed<A>, page: { pageSize: number }) => AsyncIterable<z.output<I>>;
}

type ListResult<K extends string, I extends z.ZodType> = { [P in K]: z.output<I>[] };

export interface ListDataSource<A extends z.ZodType, K extends string, I extends z.ZodType> {
  declaration: DataSourceDeclaration;
  result: z.ZodObject<{ [P in K]: z.ZodArray<I> }>;
  run: DataSourceFunction<z.input<A> | undefined, ListResult<K, I>>;
}

/** A list data source: every item its arguments' list request answers, across pages. */
export function listDataSource<A extends z.ZodType, K extends string, I extends z.ZodType>(
  spec: ListSpec<A, K, I>,
): ListDataSource<A, K, I> {
  const result = z.object({ [spec.key]: z.array(spec.item).describe(spec.doc) }) as z.ZodObject<{
    [P in K]: z.ZodArray<I>;
  }>;
  const answer = (items: z.output<I>[]) => ({ [spec.key]: items }) as ListResult<K, I>;
  const run = async (args: z.input<A> | undefined): Promise<ListResult<K, I>> => {
    const { profile, ...filters } = parseArgs(spec.token, spec.args, args) as { profile?: string };
    // An empty uids list asks for nothing: no request.
    const { uids } = filters as { uids?: unknown[] };
    if (uids !== undefined && uids.length === 0) return answer([]);
    return withProgramClient(profile, { action: "list", type: spec.token }, async (client) =>
      answer(await collect(spec.list(client, filters as Parsed<A>, PAGE))),
    );
  };
  const { token, summary, args } = spec;
  const invoke = (input: Record<string, unknown>) => run(input as z.input<A>);
  return { declaration: declareDataSource({ token, summary, args, result, invoke }), result, run };
}

/** The objects a lookup found when its arguments gave no uid, and where it searched (for the message). */
export interface Candidates<T> {
  matches: T[];
  /** e.g. "in organization <uid>". */
  where: string;
  /** What to pass instead when several match; default "pass uid". */
  hint?: string;
}

export interface LookupSpec<A extends z.ZodType, T extends { uid: string }, R> extends DataSourceHead<A> {
  result: z.ZodType<R>;
  /** How the messages name one object and several: "group", "groups". */
  kind: string;
  kinds: string;
  get: (client: PlatformClient, uid: string) => Promise<T>;
  /**
   * The candidates when the arguments name no uid: exactly one is the answer, none or several an argument error.
   * `page` is the page size every data source reads with.
   */
  find: (client: PlatformClient, args: Parsed<A>, page: { pageSize: number }) => Promise<Candidates<T>>;
  /** The result: the object found, with what the data source adds to it. */
  answer: (found: T) => R;
}

export interface LookupDataSource<A extends z.ZodType, R> {
  declaration: DataSourceDeclaration;
  run: DataSourceFunction<z.input<A>, R>;
}

/** A lookup data source: the object the uid names, else the only candidate its `find` answers. */
export function lookupDataSource<A extends z.ZodType, T extends { uid: string }, R>(
  spec: LookupSpec<A, T, R>,
): LookupDataSource<A, R> {
  const run = async (args: z.input<A>): Promise<R> => {
    const { profile, ...rest } = parseArgs(spec.token, spec.args, args) as { profile?: string };
    const { uid, name } = rest as { uid?: string; name?: string };
    return withProgramClient(profile, { action: "look up", type: spec.token, name, uid }, async (client) => {
      if (uid !== undefined) return spec.answer(await spec.get(client, uid));
      const { matches, ...search } = await spec.find(client, rest as Parsed<A>, PAGE);
      return spec.answer(
        theOnlyMatch(spec.token, matches, { kind: spec.kind, kinds: spec.kinds, name, ...search }),
      );
    });
  };
  const { token, summary, args, result } = spec;
  const invoke = (input: Record<string, unknown>) => run(input as z.input<A>);
  return { declaration: declareDataSource({ token, summary, args, result, invoke }), run };
}

/**
 * The objects named exactly `name` among what a list answers (a list's name filter narrows the request; the
 * comparison here is what decides).
 */
export async function named<T extends { name?: string | undefined }>(
  name: string,
  items: AsyncIterable<T>,
): Promise<T[]> {
  return (await collect(items)).filter((item) => item.name === name);
}
