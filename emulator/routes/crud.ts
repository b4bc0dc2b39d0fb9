/**
 * How the emulator serves one collection of the API, and the verbs every v2 collection shares but list: get, create
 * under a parent group, PATCH with or without updateMask (AIP-134, see ../update-mask.ts), delete. Each collection's
 * file describes it with a `CollectionSpec` (special rules live in its hooks); ./table.ts names which verbs it
 * answers. The list is ./crud-list.ts; which members a body may carry, ./crud-bodies.ts.
 */
import type { z } from "zod";
import type { Capability } from "../../sdk/schemas/capabilities";
import type { FieldViolation } from "../../sdk/schemas/common";
import { COLLECTION_ACCESS, capabilityFor, type Verb } from "../../sdk/access-model";
import { COLLECTIONS } from "../../sdk/collections";
import { notFound } from "../errors";
import { checkQuery, type ListParams, type ParamRule, type Query } from "../listing";
import { resolveUpdate, type UpdateRules } from "../update-mask";
import type { Kind, StoredObject } from "../store";
import { outputOnlyOf, refuseMistypedMembers, refuseUnknownFields, wireMessageOf } from "./crud-bodies";
import type { RouteContext } from "./types";

/**
 * How the emulator serves one collection of the API (groups, roleBindings, ...): where it lives, who may do what,
 * how a stored object looks on the wire, and the rules of its create and update. One per file under ./routes.
 */
export interface CollectionSpec {
  kind: Kind;
  /** Member name of the list envelope, e.g. "roleBindings". */
  plural: string;
  /** Singular for messages, e.g. "role binding". */
  label: string;
  /** e.g. "/iam/v2beta1/roleBindings". */
  prefix: string;
  sortable: readonly string[];
  toWire: (object: StoredObject, ctx: RouteContext) => Record<string, unknown>;
  /**
   * The group whose bindings govern access to this object, from the stored object. Default: its parent. It is the
   * access model's position of the object's uid (`COLLECTION_ACCESS`, test/emulator/access-wiring.test.ts).
   */
  accessGroup?: (object: StoredObject) => string;
  /**
   * The list's own parameters beyond paging and the uidp filters (camelCase; see ParamRule), each honoured by
   * `filters` (or the generic `name`) or refused with a reason. Default: `name` alone.
   */
  listParams?: Readonly<Record<string, ParamRule>>;
  /** Extra list filters: a predicate and a stable key for caching. */
  filters?: (query: Query) => { key: string; test: (object: StoredObject) => boolean } | undefined;
  /** Objects every caller may see (built-in roles). */
  globalObjects?: (params: ListParams) => StoredObject[];
  create?: {
    schema: z.ZodTypeAny;
    /**
     * Members the OpenAPI leaves writable that a spec rule keeps from clients (a group's `verified`): ignored on
     * create as the OpenAPI's output-only members are (AIP-203; ./crud-bodies.ts reads those from the OpenAPI).
     */
    ignored?: readonly string[];
    /** Rules beyond the schema, named in the same answer as its violations (code 3). */
    check?: (input: Record<string, unknown>) => FieldViolation[];
    /** Validates references and returns the fields to store (may throw). Runs after access checks. */
    fields?: (body: Record<string, unknown>, parentUid: string, ctx: RouteContext) => Record<string, unknown>;
    /** Overrides uid choice (account associations use the group's uid). */
    uid?: (parentUid: string, ctx: RouteContext) => string;
    updateTime?: boolean;
    /** Adjusts the response of create only (an invite's code). */
    respond?: (
      wire: Record<string, unknown>,
      object: StoredObject,
      ctx: RouteContext,
    ) => Record<string, unknown>;
  };
  /**
   * PATCH: AIP-134 update masks (../update-mask.ts) over these rules. Its output-only members are the OpenAPI's
   * (./crud-bodies.ts), so a spec sets none.
   */
  update?: Omit<UpdateRules, "ignored"> & {
    /** As create.check, on the values after the update (so a PATCH cannot leave a broken object). */
    check?: (input: Record<string, unknown>) => FieldViolation[];
    /** Merges validated changes into stored fields (keeps write-only secrets); `paths` is the effective mask. */
    apply?: (
      object: StoredObject,
      changes: Record<string, unknown>,
      ctx: RouteContext,
      paths: readonly string[],
    ) => void;
    updateTime?: boolean;
  };
  /** Runs before delete (e.g. refuse non-empty groups); may cascade. */
  beforeDelete?: (object: StoredObject, ctx: RouteContext) => void;
  /** Group a create goes under must satisfy this (identity providers: organizations only). */
  checkParent?: (parentUid: string, ctx: RouteContext) => void;
}

/** What a collection's spec takes from the one table (../../sdk/collections): its kind, words and path. */
export function collectionSpec<K extends Kind>(
  kind: K,
): { kind: K; plural: K; label: string; prefix: string } {
  return { kind, plural: kind, label: COLLECTIONS[kind].singular, prefix: COLLECTIONS[kind].path };
}

/** The members most collections sort by. */
export const COMMON_SORT = ["uid", "name", "description", "createTime", "updateTime"] as const;

export const defaultAccessGroup = (o: StoredObject): string => o.parent;

/**
 * The group whose bindings govern `uid` of this kind, from the uid alone, so access is decided before, and
 * independently of, whether the object exists (AIP-211): the access model's rule 4 (../../sdk/access-model.ts).
 */
export function positionOf(spec: CollectionSpec, uid: string): string {
  return COLLECTION_ACCESS[spec.kind].position(uid);
}

/** The capability `verb` on this collection needs: the access model's rule 4. */
export function cap(spec: CollectionSpec, verb: Verb): Capability {
  return capabilityFor(spec.kind, verb);
}

/**
 * Loads an object the caller may read (and change, for UPDATE / DELETE). Access is decided from the uid first, so
 * an object the caller cannot see and a missing one get the same 404 with the same message (AIP-211); on a
 * position the caller sees, a missing capability is 403 whether or not the object exists.
 */
export function loadVisible(
  spec: CollectionSpec,
  ctx: RouteContext,
  uid: string,
  verb: "LIST" | "UPDATE" | "DELETE",
): StoredObject {
  const what = `${spec.label} ${uid}`;
  const group = positionOf(spec, uid);
  ctx.svc.access.require(ctx.caller, group, cap(spec, "LIST"), what);
  if (verb !== "LIST") ctx.svc.access.require(ctx.caller, group, cap(spec, verb), what);
  const object = ctx.svc.store.get(spec.kind, uid);
  if (object === undefined || uid === "" || (spec.accessGroup ?? defaultAccessGroup)(object) !== group)
    throw notFound(what);
  return object;
}

/** The parent group of a create: visible, with the create capability (checked before existence), and existing. */
export function loadParentGroup(spec: CollectionSpec, ctx: RouteContext, parentUid: string): StoredObject {
  const what = `group ${parentUid}`;
  ctx.svc.access.require(ctx.caller, parentUid, cap(spec, "CREATE"), what);
  const parent = ctx.svc.store.get("groups", parentUid);
  if (parent === undefined || parentUid === "") throw notFound(what);
  return parent;
}

/**
 * Get, create and delete take no query parameter and PATCH only `updateMask` (the OpenAPI documents none; the
 * spec adds updateMask): anything else is refused, never ignored (a misspelt mask would otherwise change the
 * fields the body implies).
 */
export const NO_PARAMS: Readonly<Record<string, ParamRule>> = {};
export const UPDATE_PARAMS: Readonly<Record<string, ParamRule>> = { updateMask: "text" };

export function getHandler(spec: CollectionSpec) {
  return (ctx: RouteContext): Record<string, unknown> => {
    checkQuery(ctx.query, NO_PARAMS, `GET ${spec.prefix}/{uid}`);
    return spec.toWire(loadVisible(spec, ctx, ctx.uid, "LIST"), ctx);
  };
}

/**
 * A create body's members: those of the create schema, and output-only ones (the OpenAPI's, and `create.ignored`),
 * which are ignored if they have their type in the OpenAPI's message of the kind (./crud-bodies.ts); anything else
 * is code 3 naming it. Read from the OpenAPI once, when the check is built, so a kind without its message fails at
 * start rather than on a request.
 */
export function createBodyCheck(spec: CollectionSpec): (body: unknown) => void {
  const create = spec.create!;
  const outputOnly = [...outputOnlyOf(spec.kind), ...(create.ignored ?? [])];
  const wire = wireMessageOf(spec.kind);
  return (body) => refuseUnknownFields(body, create.schema, spec.label, outputOnly, wire);
}

export function createHandler(spec: CollectionSpec) {
  const create = spec.create!;
  const refuseUnknown = createBodyCheck(spec);
  return (ctx: RouteContext): Record<string, unknown> => {
    checkQuery(ctx.query, NO_PARAMS, `POST ${spec.prefix}/{uid}`);
    const parentUid = ctx.uid;
    loadParentGroup(spec, ctx, parentUid);
    spec.checkParent?.(parentUid, ctx);
    refuseUnknown(ctx.body);
    const body = ctx.svc.parseBody(create.schema, ctx.body, create.check) as Record<string, unknown>;
    const fields = create.fields ? create.fields(body, parentUid, ctx) : body;
    const object = ctx.svc.insert(spec.kind, parentUid, fields, {
      ...(create.uid ? { uid: create.uid(parentUid, ctx) } : {}),
      ...(create.updateTime === false ? { updateTime: false } : {}),
    });
    ctx.svc.access.created(spec.kind, object.uid);
    const wire = spec.toWire(object, ctx);
    return create.respond ? create.respond(wire, object, ctx) : wire;
  };
}

export function updateHandler(spec: CollectionSpec) {
  const update = spec.update!;
  // As on create: unknown members are refused, output-only ones ignored if they have their type (AIP-203), also
  // in a mask; those only the service's staff may change (`restricted`) are resolveUpdate's to judge. Read from the
  // OpenAPI once, here.
  const ignored = outputOnlyOf(spec.kind);
  const accepted = [...ignored, ...Object.keys(update.restricted ?? {})];
  const message = wireMessageOf(spec.kind);
  return (ctx: RouteContext): Record<string, unknown> => {
    checkQuery(ctx.query, UPDATE_PARAMS, `PATCH ${spec.prefix}/{uid}`);
    const object = loadVisible(spec, ctx, ctx.uid, "UPDATE");
    const wire = spec.toWire(object, ctx);
    refuseUnknownFields(ctx.body, update.schema, spec.label, accepted, message);
    const { changes: merged, paths } = resolveUpdate(ctx.query, ctx.body, object.fields, wire, {
      ...update,
      ignored,
    });
    // Members the mask leaves out are not applied, but are still read: each must have its type.
    const masked = new Set(paths.map((path) => path.split(".")[0]!));
    const unmasked = Object.keys(ctx.body ?? {}).filter((member) => !masked.has(member));
    refuseMistypedMembers(ctx.body, message, unmasked, (member) => `${member} is outside the update mask`);
    // Nothing to change (no body, null, {}, or only output-only members): a true no-op, updateTime included.
    if (paths.length === 0) return wire;
    // The values after the update are validated whole, so a nested change cannot leave an invalid message.
    const defined = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined));
    const parsed = ctx.svc.parseBody(update.schema, defined, update.check) as Record<string, unknown>;
    const changes: Record<string, unknown> = {};
    for (const field of Object.keys(merged)) changes[field] = parsed[field];
    const next: StoredObject = { ...object, fields: { ...object.fields } };
    if (update.apply) update.apply(next, changes, ctx, paths);
    else applyChanges(next, changes);
    if (update.updateTime !== false) next.updateTime = ctx.svc.now();
    ctx.svc.store.put(spec.kind, next);
    return spec.toWire(next, ctx);
  };
}

export function applyChanges(object: StoredObject, changes: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) delete object.fields[field];
    else object.fields[field] = value;
  }
}

export function deleteHandler(spec: CollectionSpec) {
  return (ctx: RouteContext): Record<string, unknown> => {
    checkQuery(ctx.query, NO_PARAMS, `DELETE ${spec.prefix}/{uid}`);
    const object = loadVisible(spec, ctx, ctx.uid, "DELETE");
    spec.beforeDelete?.(object, ctx);
    ctx.svc.store.delete(spec.kind, object.uid);
    return {};
  };
}

/** Common wire members of a stored object. */
export function baseWire(object: StoredObject, withUpdateTime = true): Record<string, unknown> {
  return {
    uid: object.uid,
    ...object.fields,
    createTime: object.createTime,
    ...(withUpdateTime && object.updateTime !== undefined ? { updateTime: object.updateTime } : {}),
  };
}
