/**
 * Registry repositories, read-only here.
 *
 *   GET /registry/v2beta1/repos              list
 *   GET /registry/v2beta1/repos/{repo_uid}   get
 */
import { COLLECTIONS } from "../collections";
import type { ListQuery } from "../core";
import { Repo, RepoList } from "../schemas/repos";
import { ReadableResource, type ResourceCollection } from "./resource";

export type { Repo } from "../schemas/repos";
export type RepoListQuery = ListQuery;

export class Repos extends ReadableResource<Repo, RepoListQuery> {
  protected readonly collection: ResourceCollection<Repo> = {
    name: "repos",
    path: COLLECTIONS.repos.path,
    item: Repo,
    page: RepoList,
  };
}
