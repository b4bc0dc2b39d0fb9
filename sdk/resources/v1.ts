/**
 * The v1 lists still offered: results under `items`, `id` for uid. No paging.
 *
 *   GET /iam/v1/groups                v1.groups.list
 *   GET /registry/v1/repos            v1.repos.list
 *   GET /iam/v1/identities/lookup     v1.identities.lookup (issuer, subject → the identity)
 */
import type { z } from "zod";
import type { UidpFilters } from "../core";
import type { Core } from "../core";
import { V1GroupList, V1Identity, V1RepoList, type V1Group, type V1Repo } from "../schemas/v1";
import { APIResource } from "./resource";

export type { V1Group, V1Identity, V1Repo } from "../schemas/v1";

export interface V1ListQuery extends Pick<UidpFilters, "descendantsOf" | "childrenOf"> {
  /** `name`: exact match. */
  name?: string;
  /** `id`: exactly these objects (one id, or several, sent as a repeated parameter). */
  id?: string | string[];
}

/** A v1 list: one request, the results under `items`. */
abstract class V1ListResource<T> extends APIResource {
  protected abstract readonly path: string;
  protected abstract readonly envelope: z.ZodType<{ items: T[] }>;

  async list(query: V1ListQuery = {}): Promise<T[]> {
    const body = await this.core.request({
      method: "GET",
      path: this.path,
      query: { ...query },
      schema: this.envelope,
    });
    return body.items;
  }
}

export class V1Groups extends V1ListResource<V1Group> {
  protected readonly path: string = "/iam/v1/groups";
  protected readonly envelope: z.ZodType<{ items: V1Group[] }> = V1GroupList;
}

export class V1Repos extends V1ListResource<V1Repo> {
  protected readonly path: string = "/registry/v1/repos";
  protected readonly envelope: z.ZodType<{ items: V1Repo[] }> = V1RepoList;
}

export class V1Identities extends APIResource {
  /** The identity with exactly this issuer and subject that the caller may see; NotFoundError if none. */
  async lookup(query: { issuer: string; subject: string }): Promise<V1Identity> {
    return this.core.request({
      method: "GET",
      path: "/iam/v1/identities/lookup",
      query: { issuer: query.issuer, subject: query.subject },
      schema: V1Identity,
    });
  }
}

export class V1 {
  readonly groups: V1Groups;
  readonly repos: V1Repos;
  readonly identities: V1Identities;
  constructor(core: Core) {
    this.groups = new V1Groups(core);
    this.repos = new V1Repos(core);
    this.identities = new V1Identities(core);
  }
}
