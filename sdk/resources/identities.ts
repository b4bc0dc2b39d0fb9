/**
 * Identities: workload identities assumable through token exchange.
 *
 *   GET    /iam/v2beta1/identities                       list (filters as groups, plus relationship_type)
 *   GET    /iam/v2beta1/identities/{identity_uid}        get
 *   POST   /iam/v2beta1/identities/{parent_group_uid}    create
 *   PATCH  /iam/v2beta1/identities/{identity_uid}        update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/identities/{identity_uid}        delete
 */
import { resourcePath, updateMaskFor, type ListQuery } from "../core";
import type { PagePromise } from "../pagination";
import { Identity, IdentityList, type IdentityCreate, type IdentityUpdate } from "../schemas/identities";
import { APIResource } from "./resource";

export type { Identity, IdentityCreate, IdentityUpdate } from "../schemas/identities";

export interface IdentityListQuery extends ListQuery {
  /** `relationship_type`, e.g. RELATIONSHIP_TYPE_CLAIM_MATCH. */
  relationshipType?: string;
}

const COLLECTION = "/iam/v2beta1/identities";

export class Identities extends APIResource {
  list(query: IdentityListQuery = {}): PagePromise<Identity> {
    return this.core.list("identities.list", COLLECTION, { ...query }, IdentityList);
  }

  async get(uid: string): Promise<Identity> {
    return this.core.request({ method: "GET", path: resourcePath(COLLECTION, uid), schema: Identity });
  }

  async create(parentUid: string, body: IdentityCreate): Promise<Identity> {
    return this.core.request({
      method: "POST",
      path: resourcePath(COLLECTION, parentUid),
      body,
      schema: Identity,
    });
  }

  async update(uid: string, patch: IdentityUpdate): Promise<Identity> {
    const { body, updateMask } = updateMaskFor("identities.update", patch);
    return this.core.request({
      method: "PATCH",
      idempotent: true,
      path: resourcePath(COLLECTION, uid),
      query: { updateMask },
      body,
      schema: Identity,
    });
  }

  async delete(uid: string): Promise<void> {
    return this.core.request({ method: "DELETE", path: resourcePath(COLLECTION, uid), schema: undefined });
  }
}
