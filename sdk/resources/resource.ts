/**
 * The uniform verbs every resource offers, written once: `list` and `get` for every v2 collection, `create` and
 * `delete` for those a client may write, `update` for those it may change. A resource file names its collection
 * and its types and keeps only what differs (an extra verb, a list query it rewrites). Paths are built with
 * `resourcePath`, never by concatenation.
 */
import type { z } from "zod";
import { resourcePath, updateMaskFor, type Core, type PageQuery, type QueryValue } from "../core";
import type { PagePromise } from "../pagination";
import type { ListPage } from "../schemas/common";

export abstract class APIResource {
  constructor(protected readonly core: Core) {}
}

/** One v2 collection as its client resource sends to it. */
export interface ResourceCollection<T> {
  /** The client's property, which names the operation in an error: `groups` → "groups.update: ...". */
  name: string;
  /** The collection's path, e.g. `/iam/v2beta1/groups`. */
  path: string;
  /** One object, as get, create and update answer it. */
  item: z.ZodType<T>;
  /** One page of a list. */
  page: z.ZodType<ListPage<T>>;
}

/** A list query: paging, plus filters whose values go out as query parameters. */
export type CollectionQuery<Q> = PageQuery & { [K in keyof Q]: QueryValue };

/** `list` and `get`: every v2 collection. */
export abstract class ReadableResource<T, Q extends CollectionQuery<Q>> extends APIResource {
  protected abstract readonly collection: ResourceCollection<T>;

  list(query?: Q): PagePromise<T> {
    const { name, path, page } = this.collection;
    // A query interface has no index signature; its values are QueryValues by the constraint on Q.
    return this.core.list(`${name}.list`, path, { ...query } as Record<string, QueryValue> & PageQuery, page);
  }

  async get(uid: string): Promise<T> {
    return this.core.request({
      method: "GET",
      path: resourcePath(this.collection.path, uid),
      schema: this.collection.item,
    });
  }
}

/**
 * Adds `create` (the parent goes in the path, the body holds only the object's fields) and `delete`. `P` is what a
 * create may name as parent: `string | undefined` where a create without one makes a root object.
 */
export abstract class WritableResource<
  T,
  Q extends CollectionQuery<Q>,
  C,
  P extends string | undefined = string,
> extends ReadableResource<T, Q> {
  async create(parentUid: P, body: C): Promise<T> {
    return this.core.request({
      method: "POST",
      path: resourcePath(this.collection.path, parentUid),
      body,
      schema: this.collection.item,
    });
  }

  async delete(uid: string): Promise<void> {
    return this.core.request({
      method: "DELETE",
      path: resourcePath(this.collection.path, uid),
      schema: undefined,
    });
  }
}

/** Adds `update`: exactly the fields of the patch whose value is not undefined, named in the updateMask. */
export abstract class UpdatableResource<
  T,
  Q extends CollectionQuery<Q>,
  C,
  U extends object,
  P extends string | undefined = string,
> extends WritableResource<T, Q, C, P> {
  /** Returns the object after the update. */
  async update(uid: string, patch: U): Promise<T> {
    const { body, updateMask } = updateMaskFor(`${this.collection.name}.update`, patch);
    return this.core.request({
      method: "PATCH",
      // Repeating a PATCH with an updateMask sets the same values again, so it is safe to retry.
      idempotent: true,
      path: resourcePath(this.collection.path, uid),
      query: { updateMask },
      body,
      schema: this.collection.item,
    });
  }
}
