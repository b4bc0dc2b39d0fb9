/** Repos: read-only (created by seeding), listed and read through v2beta1. */
import { baseWire, type CollectionSpec } from "./crud";

export const repos: CollectionSpec = {
  kind: "repos",
  plural: "repos",
  label: "repo",
  prefix: "/registry/v2beta1/repos",
  sortable: ["uid", "name", "description", "createTime", "updateTime", "catalogTier"],
  toWire: (o) => baseWire(o),
};
