/**
 * What every route handler gets: storage, access checks, listing, the clock, the OIDC issuer and small helpers
 * (uids, timestamps, body validation). Also the bootstrap (a root user owning "demo-org") and seeding.
 */
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import { Access, builtinRoleByName, type Caller } from "./access";
import { ApiTokens, EXCHANGED_TOKEN_LIFETIME_MS, USER_TOKEN_LIFETIME_MS } from "./api-tokens";
import type { Clock } from "./clock";
import { GROUP_NAME_PATTERN } from "../sdk/rules";
import { UID_SEGMENT_PATTERN } from "../sdk/schemas/common";
import { parseKeepingKeys } from "../sdk/schemas/own-keys";
import { parentOf } from "../sdk/uidp";
import { ApiFailure, badField, fromZod, invalidArgument } from "./errors";
import type { FieldViolation } from "../sdk/schemas/common";
import { Lister } from "./listing";
import type { OidcIssuer } from "./oidc";
import type { Kind, Store, StoredObject } from "./store";
import { withLastSeenTime } from "./model";

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
  status: number;
  identityUid?: string;
  time: string;
  durationMs: number;
  /**
   * For a call through the gRPC face, its method ("chainguard.platform.iam.v2beta1.GroupsService/GetGroup");
   * `method`, `path` and `query` are then the REST request of its http rule, and `status` that request's HTTP status.
   */
  rpc?: string;
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

/** A child uid: parent + "/" + 16 hex; a root uid (organization, root-level user): 40 hex, as the real service. */
export function newUid(parent?: string): string {
  return parent === undefined || parent === "" ? randomHex(20) : `${parent}/${randomHex(8)}`;
}

export interface SeedCounts {
  groups: number;
  repos: number;
  tags: number;
  advisories: number;
}

export class Service {
  readonly access: Access;
  readonly lister = new Lister();
  /** Signs and verifies API tokens (JWTs). */
  readonly tokens: ApiTokens;
  /** How long an exchanged token lives on the emulator clock (spec, Limits: one hour). */
  exchangedTokenLifetimeMs = EXCHANGED_TOKEN_LIFETIME_MS;

  constructor(
    readonly store: Store,
    readonly clock: Clock,
    readonly issuer: OidcIssuer,
  ) {
    this.access = new Access(store, clock);
    this.tokens = ApiTokens.load(store, clock);
  }

  now(): string {
    return this.clock.now().toISOString();
  }

  /** Saves the clock reading with the state and writes the data file when something changed. */
  persist(): void {
    this.store.meta.clock = this.clock.state();
    this.store.flush();
  }

  /**
   * Bound violations of the current request's body (bounds.ts), left by the server for `parseBody` so one answer
   * names every failing field, the schema's and the bounds' together.
   */
  pendingBodyViolations: FieldViolation[] = [];

  /** Parses a request body with a zod schema; an empty body counts as `{}` so required fields are named. */
  parseBody<S extends z.ZodTypeAny>(
    schema: S,
    body: unknown,
    /** Rules beyond the schema (claimMatch, known capabilities...), reported in the same answer. */
    check?: (input: Record<string, unknown>) => FieldViolation[],
  ): z.infer<S> {
    const bounds = this.pendingBodyViolations;
    this.pendingBodyViolations = [];
    const input = body === undefined || body === null || body === "" ? {} : body;
    if (typeof input !== "object" || Array.isArray(input)) {
      throw invalidArgument("the request body must be a JSON object", [
        { field: "body", description: "must be a JSON object" },
      ]);
    }
    const result = parseKeepingKeys(schema, input);
    const extra = [...bounds, ...(check?.(input as Record<string, unknown>) ?? [])];
    if (result.success && extra.length === 0) return result.data as z.infer<S>;
    const violations = result.success ? [] : fromZod(result.error, input).fieldViolations;
    const top = (field: string): string => field.split(/[.[]/)[0]!;
    for (const more of extra)
      if (!violations.some((v) => v.field === more.field || top(v.field) === more.field))
        violations.push(more);
    throw invalidArgument(violations.map((v) => v.description).join("; "), violations);
  }

  /** Inserts a new object with server-set uid and times (and an identity's lastSeenTime, ./model.ts). */
  insert(
    kind: Kind,
    parent: string,
    fields: Record<string, unknown>,
    options: { uid?: string; updateTime?: boolean } = {},
  ): StoredObject {
    const time = this.now();
    const made: StoredObject = {
      uid: options.uid ?? newUid(parent),
      parent,
      fields: withoutUndefined(fields),
      createTime: time,
      ...(options.updateTime === false ? {} : { updateTime: time }),
    };
    const object = kind === "identities" ? withLastSeenTime(made) : made;
    this.store.put(kind, object);
    return object;
  }

  /**
   * Creates a root-level user identity (no parent) and returns it with a long-lived API token (a JWT; `aud` is the
   * API's URL). `token` reuses a token minted earlier for the same uid (reset keeps what holders have).
   */
  createUser(name: string, token?: string, uid = newUid()): { identity: StoredObject; token: string } {
    const identity = this.insert("identities", "", { name, description: "root-level user" }, { uid });
    const minted =
      token ??
      this.tokens.mint({ subject: uid, audience: this.tokens.issuer, lifetimeMs: USER_TOKEN_LIFETIME_MS })
        .token;
    return { identity, token: minted };
  }

  /** Creates an organization owned by `owner` (an owner binding on it, like the real service). */
  createOrganization(owner: Caller, fields: Record<string, unknown>, uid?: string): StoredObject {
    const group = this.insert("groups", "", { ...fields, verified: false }, uid === undefined ? {} : { uid });
    this.insert(
      "roleBindings",
      group.uid,
      { identityUid: owner.identityUid, roleUid: builtinRoleByName("owner").uid },
      { updateTime: false },
    );
    return group;
  }

  /** The bootstrap: a user owning "demo-org". Reuses uids and token on reset so holders stay valid. */
  bootstrap(previous?: { identityUid: string; orgUid: string; token: string }): {
    identityUid: string;
    orgUid: string;
    token: string;
  } {
    const { identity, token } = this.createUser("demo-user", previous?.token, previous?.identityUid);
    const org = this.createOrganization(
      { identityUid: identity.uid },
      { name: "demo-org", description: "Created by the emulator" },
      previous?.orgUid,
    );
    this.store.meta.orgUid = org.uid;
    this.store.meta.bootstrapIdentityUid = identity.uid;
    this.store.meta.bootstrapToken = token;
    return { identityUid: identity.uid, orgUid: org.uid, token };
  }

  /** Seeds read-only data: repos with tags, advisories. See emulator/README.md for the format. */
  seed(data: unknown): SeedCounts {
    const counts: SeedCounts = { groups: 0, repos: 0, tags: 0, advisories: 0 };
    if (data === null || typeof data !== "object" || Array.isArray(data))
      throw badField("body", "seed data must be an object");
    // Nothing sent is dropped: a member the seed format does not have is named, not ignored.
    for (const key of Object.keys(data))
      if (!["groups", "repos", "advisories"].includes(key))
        throw badField(key, `${key} is not a member of seed data (groups, repos, advisories)`);
    const seed = data as { repos?: unknown; advisories?: unknown; groups?: unknown };
    const defaultGroup = this.store.meta.orgUid ?? "";
    const groupOf = (entry: Record<string, unknown>, where: string): string => {
      const group = typeof entry.group === "string" ? entry.group : defaultGroup;
      if (this.store.get("groups", group) === undefined)
        throw badField(where, `${where}: group ${group} does not exist`);
      return group;
    };
    // Groups are created in order, so a parent listed earlier (with its uid) can hold later entries.
    for (const [i, raw] of asArray(seed.groups, "groups").entries()) {
      const entry = raw as Record<string, unknown>;
      if (typeof entry.name !== "string" || !GROUP_NAME_PATTERN.test(entry.name))
        throw badField(`groups[${i}].name`, `groups[${i}].name must match ^[a-z0-9 ._-]{1,}$`);
      const parent = groupOf({ group: entry.parent }, `groups[${i}].parent`);
      if (entry.uid !== undefined) {
        if (
          typeof entry.uid !== "string" ||
          (parentOf(entry.uid) ?? "") !== parent ||
          !UID_SEGMENT_PATTERN.test(entry.uid.slice(parent.length + 1))
        ) {
          throw badField(
            `groups[${i}].uid`,
            `groups[${i}].uid must be the parent's uid followed by / and 16 hex characters`,
          );
        }
        if (this.store.get("groups", entry.uid) !== undefined)
          throw badField(`groups[${i}].uid`, `groups[${i}].uid ${entry.uid} already exists`);
      }
      if (entry.verified !== undefined && typeof entry.verified !== "boolean")
        throw badField(`groups[${i}].verified`, `groups[${i}].verified must be a boolean`);
      // Only the service's staff verify a group; seeding stands in for them.
      const fields = {
        name: entry.name,
        description: typeof entry.description === "string" ? entry.description : "",
        verified: entry.verified === true,
      };
      this.insert("groups", parent, fields, typeof entry.uid === "string" ? { uid: entry.uid } : {});
      counts.groups++;
    }
    for (const [i, raw] of asArray(seed.repos, "repos").entries()) {
      const entry = raw as Record<string, unknown>;
      if (typeof entry.name !== "string")
        throw badField(`repos[${i}].name`, `repos[${i}].name must be a string`);
      const { group: _group, tags, ...fields } = entry;
      const repo = this.insert("repos", groupOf(entry, `repos[${i}].group`), fields);
      counts.repos++;
      for (const [j, rawTag] of asArray(tags, `repos[${i}].tags`).entries()) {
        const tag = rawTag as Record<string, unknown>;
        if (typeof tag.name !== "string" || typeof tag.digest !== "string") {
          throw badField(`repos[${i}].tags[${j}]`, `repos[${i}].tags[${j}] needs string name and digest`);
        }
        this.insert("tags", repo.uid, tag);
        counts.tags++;
      }
    }
    for (const [i, raw] of asArray(seed.advisories, "advisories").entries()) {
      const entry = raw as Record<string, unknown>;
      if (typeof entry.advisoryId !== "string")
        throw badField(`advisories[${i}].advisoryId`, `advisories[${i}].advisoryId must be a string`);
      const { group: _group, ...fields } = entry;
      this.insert("advisories", groupOf(entry, `advisories[${i}].group`), fields);
      counts.advisories++;
    }
    return counts;
  }
}

function asArray(value: unknown, where: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw badField(where, `${where} must be an array`);
  for (const [i, item] of value.entries())
    if (item === null || typeof item !== "object" || Array.isArray(item))
      throw badField(`${where}[${i}]`, `${where}[${i}] must be an object`);
  return value;
}

export function withoutUndefined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

export { ApiFailure };
