/** Tags: read-only (created by seeding); a tag lives under a repo, whose group decides access. */
import { queryParam } from "../listing";
import { parentOf } from "../../sdk/uidp";
import { baseWire, type CollectionSpec } from "./crud";

export const tags: CollectionSpec = {
  kind: "tags",
  plural: "tags",
  label: "tag",
  prefix: "/registry/v2beta1/tags",
  capability: "CAP_TAG",
  sortable: ["uid", "name", "digest", "createTime", "updateTime"],
  // A tag lives under a repo; access is decided by the repo's group.
  accessGroup: (o) => o.parent.slice(0, o.parent.lastIndexOf("/")),
  accessGroupOfUid: (uid) => parentOf(parentOf(uid) ?? "") ?? "",
  filters: (query) => {
    const digest = queryParam(query, "digest");
    return digest === undefined ? undefined : { key: digest, test: (o) => o.fields.digest === digest };
  },
  toWire: (o) => {
    const { createTime: _c, ...wire } = baseWire(o);
    return wire;
  },
};
