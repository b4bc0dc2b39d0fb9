/**
 * Registry repositories, read-only here.
 *
 *   GET /registry/v2beta1/repos              list
 *   GET /registry/v2beta1/repos/{repo_uid}   get
 */
import { resourcePath, type ListQuery } from "../core";
import type { PagePromise } from "../pagination";
import { Repo, RepoList } from "../schemas/repos";
import { APIResource } from "./resource";

export type { Repo } from "../schemas/repos";
export type RepoListQuery = ListQuery;

const COLLECTION = "/registry/v2beta1/repos";

export class Repos extends APIResource {
  list(query: RepoListQuery = {}): PagePromise<Repo> {
    return this.core.list("repos.list", COLLECTION, { ...query }, RepoList);
  }

  async get(uid: string): Promise<Repo> {
    return this.core.request({ method: "GET", path: resourcePath(COLLECTION, uid), schema: Repo });
  }
}
