/**
 * How the commands read a group's subtree from the API: the uid checked before any call, one GET of the group (a
 * refusal, in words, when it is not visible), then lists in pages of 200 whose calls are counted and whose progress is
 * said when there is more than one page. Both the import walk (./import/walk) and the access tools (./access/read)
 * read through it.
 */
import {
  NotFoundError,
  PermissionDeniedError,
  UnauthenticatedError,
  type Group,
  type ListPage,
  type PagePromise,
  type PlatformClient,
} from "../sdk";
import { Refusal } from "./command";

export const PAGE_SIZE = 200;

/** A uidp: a root segment of hex digits (an organization's has 40), then `/` and 16 hex digits per level. */
export const GROUP_UID = /^[0-9a-f]{16,40}(\/[0-9a-f]{16})*$/;

/** Every page of a list, counting calls and saying how far it is when there is more than one page. */
export async function readAll<T>(
  label: string,
  list: PagePromise<T>,
  count: () => void,
  progress: ((line: string) => void) | undefined,
): Promise<T[]> {
  const items: T[] = [];
  let pageNo = 0;
  for await (const page of list.pages() as AsyncGenerator<ListPage<T>>) {
    count();
    pageNo++;
    items.push(...page.items);
    const total = Number(page.totalCount ?? items.length);
    if (progress && (pageNo > 1 || page.nextPageToken)) progress(`${label}: ${items.length} of ${total}`);
  }
  return items;
}

/** A refused read as a refusal in words (the credentials refused, or not allowed `what`); anything else rethrown. */
export function noAccess(err: unknown, what: string): never {
  if (UnauthenticatedError.isInstance(err))
    throw new Refusal(`the credentials were refused (${(err as Error).message})`);
  if (PermissionDeniedError.isInstance(err))
    throw new Refusal(`no access: these credentials may not ${what} (${(err as Error).message})`);
  throw err;
}

export interface OpenOptions {
  progress?: ((line: string) => void) | undefined;
  /** What the uid is when it is not a visible group ("an identity"...), for the refusal; probed on that path only. */
  whatIs?: (uid: string) => Promise<string | undefined>;
}

/** A group opened for reading: the group, a counted paged list, and the calls made so far. */
export interface OpenedGroup {
  top: Group;
  /** Every item of a list (`plural` names it in progress lines and in a refusal). */
  list: <T>(plural: string, pages: () => PagePromise<T>) => Promise<T[]>;
  /** Counts one more call made outside `list`. */
  count: () => void;
  calls: () => number;
}

/** Checks `groupUid`, reads the group and returns its reader. Throws Refusal for what it will not do. */
export async function openGroup(
  client: PlatformClient,
  groupUid: string,
  options: OpenOptions = {},
): Promise<OpenedGroup> {
  if (!GROUP_UID.test(groupUid))
    throw new Refusal(
      `${JSON.stringify(groupUid)} is not a group uid (hexadecimal digits, then /16 more per level)`,
    );
  let calls = 0;
  const count = () => void calls++;
  let top: Group;
  try {
    count();
    top = await client.groups.get(groupUid);
  } catch (err) {
    if (NotFoundError.isInstance(err)) {
      const what = await options.whatIs?.(groupUid);
      throw new Refusal(
        what !== undefined
          ? `${groupUid} is ${what}, not a group`
          : `no group ${groupUid} is visible to these credentials (it does not exist, or they have no access to it)`,
      );
    }
    noAccess(err, `read group ${groupUid}`);
  }
  const list = async <T>(plural: string, pages: () => PagePromise<T>): Promise<T[]> => {
    try {
      return await readAll(plural, pages(), count, options.progress);
    } catch (err) {
      return noAccess(err, `list the ${plural} under ${groupUid}`);
    }
  };
  return { top, list, count, calls: () => calls };
}
