/**
 * Identities: workload identities assumable through token exchange.
 *
 *   GET    /iam/v2beta1/identities                       list (filters as groups, plus relationship_type)
 *   GET    /iam/v2beta1/identities/{identity_uid}        get
 *   POST   /iam/v2beta1/identities/{parent_group_uid}    create
 *   PATCH  /iam/v2beta1/identities/{identity_uid}        update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/identities/{identity_uid}        delete
 *   GET    /iam/v2beta1/identities:lookupIdentity        lookup (issuer, subject → uid)
 */
import { resourcePath, updateMaskFor, type ListQuery } from "../core";
import type { PagePromise } from "../pagination";
import {
  Identity,
  IdentityList,
  LookupIdentityResponse,
  type IdentityCreate,
  type IdentityUpdate,
} from "../schemas/identities";
import { APIResource } from "./resource";

export type {
  AwsIdentity,
  ClaimMatch,
  Identity,
  IdentityCreate,
  IdentityUpdate,
  LookupIdentityResponse,
  StaticKeys,
} from "../schemas/identities";

export interface IdentityLookupQuery {
  /** The OIDC issuer URL, e.g. https://token.actions.githubusercontent.com. */
  issuer: string;
  /** The subject (`sub`) claim. */
  subject: string;
}

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

  /**
   * The uid of the identity an issuer and subject name. Any authenticated caller may ask; when no identity it may
   * see matches, the service answers the uid a user with that issuer and subject gets on registration.
   */
  async lookup(query: IdentityLookupQuery): Promise<LookupIdentityResponse> {
    return this.core.request({
      method: "GET",
      path: `${COLLECTION}:lookupIdentity`,
      query: { issuer: query.issuer, subject: query.subject },
      schema: LookupIdentityResponse,
    });
  }

  async delete(uid: string): Promise<void> {
    return this.core.request({ method: "DELETE", path: resourcePath(COLLECTION, uid), schema: undefined });
  }
}
