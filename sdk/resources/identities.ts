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
import { COLLECTIONS } from "../collections";
import type { ListQuery } from "../core";
import {
  Identity,
  IdentityList,
  LookupIdentityResponse,
  type IdentityCreate,
  type IdentityUpdate,
} from "../schemas/identities";
import { UpdatableResource, type ResourceCollection } from "./resource";

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

const COLLECTION = COLLECTIONS.identities.path;

export class Identities extends UpdatableResource<
  Identity,
  IdentityListQuery,
  IdentityCreate,
  IdentityUpdate
> {
  protected readonly collection: ResourceCollection<Identity> = {
    name: "identities",
    path: COLLECTION,
    item: Identity,
    page: IdentityList,
  };

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
}
