/**
 * What the emulator stores: the resource kinds, one stored object, and the data file's metadata. Both the store
 * (./store.ts) and its persistence (./journal.ts) speak of these, so they live here, below both.
 */
import { COLLECTION_NAMES, type CollectionName } from "../sdk/collections";

/** The stored kinds: the API's collections (../sdk/collections). */
export const KINDS: readonly CollectionName[] = COLLECTION_NAMES;
export type Kind = CollectionName;

/** One stored resource. `fields` holds the resource members (including write-only ones such as secrets). */
export interface StoredObject {
  uid: string;
  /** The uid that `uidp.children_of` matches: the parent group ("" for roots); an account association's group. */
  parent: string;
  fields: Record<string, unknown>;
  createTime: string;
  updateTime?: string;
}

export interface Meta {
  orgUid?: string;
  bootstrapIdentityUid?: string;
  /** Kept so the CLI can print it again after a restart on the same data file (never committed, never logged). */
  bootstrapToken?: string;
  /** The OIDC issuer's private JWK, so ID tokens stay verifiable across restarts. */
  signingJwk?: Record<string, unknown>;
  /** The private JWK that signs API tokens, so they stay valid across restarts. */
  apiTokenJwk?: Record<string, unknown>;
  /** The emulator clock at the last write, and the real clock then: a restart resumes from there (clock.ts). */
  clock?: { emulatorMs: number; realMs: number };
}

/**
 * An identity's lastSeenTime: its creation time until a token exchange first assumes it (./routes/sts.ts), then the
 * last exchange's time; the spec's Identity table returns it on create and on reads, so one whose lastSeenTime is not
 * after its createTime has never federated. Every stored identity holds it, so reads and sorting see one value: a
 * new identity from its creation (./service.ts), one from a data file written before the emulator stored it from
 * its load (./store.ts). Returns the identity with it, filled in from createTime where missing.
 */
export function withLastSeenTime(identity: StoredObject): StoredObject {
  if (identity.fields.lastSeenTime !== undefined) return identity;
  return { ...identity, fields: { ...identity.fields, lastSeenTime: identity.createTime } };
}
