/**
 * Registry tags, read-only here. A tag's uid lies under its repo's uid.
 *
 *   GET /registry/v2beta1/tags             list (`repo` = uidp.children_of the repo uid; name, digest, ...)
 *   GET /registry/v2beta1/tags/{tag_uid}   get
 */
import { COLLECTIONS } from "../collections";
import { RequestError } from "../errors";
import type { ListQuery } from "../core";
import type { PagePromise } from "../pagination";
import { Tag, TagList } from "../schemas/tags";
import { ReadableResource, type ResourceCollection } from "./resource";

export type { Tag } from "../schemas/tags";

export interface TagListQuery extends ListQuery {
  /** Tags of this repo uid; sent as `uidp.children_of`, so it cannot be combined with `childrenOf`. */
  repo?: string;
  /** `updated_since`: only tags updated after this RFC 3339 timestamp (a sync asks only for what changed). */
  updatedSince?: string;
  /** `include_referrers`: include `sha256-*` tags (signatures, attestations); left out unless true. */
  includeReferrers?: boolean;
  /** `include_dates`: include `*-20yymmdd` tags; left out unless true. */
  includeDates?: boolean;
  /** `include_epochs`: include `*-r<n>` tags; left out unless true. */
  includeEpochs?: boolean;
  /** `digest`: tags with this digest. */
  digest?: string;
}

export class Tags extends ReadableResource<Tag, TagListQuery> {
  protected readonly collection: ResourceCollection<Tag> = {
    name: "tags",
    path: COLLECTIONS.tags.path,
    item: Tag,
    page: TagList,
  };

  /** `repo` is sent as `uidp.children_of`. */
  override list(query: TagListQuery = {}): PagePromise<Tag> {
    const { repo, ...rest } = query;
    if (repo !== undefined && rest.childrenOf !== undefined && rest.childrenOf !== repo) {
      return this.core.failedList(new RequestError("tags.list: pass either repo or childrenOf, not both"));
    }
    return super.list({ ...rest, childrenOf: repo ?? rest.childrenOf });
  }
}
