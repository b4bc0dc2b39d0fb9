/** Repos: read-only (created by seeding), listed and read through v2beta1. */
import { collectionSpec, baseWire, type CollectionSpec } from "./crud";

export const repos: CollectionSpec = {
  ...collectionSpec("repos"),
  sortable: ["uid", "name", "description", "createTime", "updateTime", "catalogTier"],
  toWire: (o) => baseWire(o),
};
