/** Group invites: a role offered on a group for a while; the code is shown once, on create, and never stored. */
import { PROTO_DURATION_PATTERN } from "../../sdk/rules";
import { GroupInviteCreate } from "../../sdk/schemas";
import { MAX_TIME_MS } from "../bounds";
import { badField, type ApiFailure } from "../errors";
import { queryParam } from "../listing";
import { randomHex, withoutUndefined } from "../service";
import { collectionSpec, baseWire, type CollectionSpec } from "./crud";
import { requireGrantableRole, visibleRole } from "./references";

/** Longest invite ttl: ten years. */
export const MAX_INVITE_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;

/** A protobuf Duration "N[.frac]s" in ms, bounded to 1 ms .. MAX_INVITE_TTL_SECONDS; code 3 naming ttl otherwise. */
function parseTtlMs(ttl: string): number {
  const seconds = Number.parseFloat(ttl.slice(0, -1));
  const ms = Math.round(seconds * 1000);
  if (!Number.isFinite(ms) || ms < 1 || seconds > MAX_INVITE_TTL_SECONDS)
    throw badField("ttl", `ttl must be from 0.001s to ${MAX_INVITE_TTL_SECONDS}s (ten years)`);
  return ms;
}

export const groupInvites: CollectionSpec = {
  ...collectionSpec("groupInvites"),
  sortable: ["uid", "createTime", "expirationTime", "email", "roleUid", "keyId"],
  listParams: { keyId: "text" },
  filters: (query) => {
    const keyId = queryParam(query, "keyId", "key_id");
    return keyId === undefined ? undefined : { key: keyId, test: (o) => o.fields.keyId === keyId };
  },
  toWire: (o, ctx) => {
    const roleUid = o.fields.roleUid as string;
    const role = visibleRole(ctx, roleUid);
    return {
      ...baseWire(o, false),
      ...(role !== undefined
        ? {
            role: withoutUndefined({
              uid: roleUid,
              name: role.name,
              description: role.description ?? "",
              capabilities: role.capabilities,
            }),
          }
        : {}),
    };
  },
  create: {
    schema: GroupInviteCreate,
    updateTime: false,
    check: (input) => {
      if (typeof input.ttl !== "string" || !PROTO_DURATION_PATTERN.test(input.ttl)) return [];
      try {
        parseTtlMs(input.ttl);
        return [];
      } catch (error) {
        return (error as ApiFailure).fieldViolations;
      }
    },
    fields: (body, parent, ctx) => {
      const ttlMs = parseTtlMs(body.ttl as string);
      requireGrantableRole(ctx, body.roleUid as string, parent, "roleUid");
      const expiresAt = ctx.svc.clock.now().getTime() + ttlMs;
      if (expiresAt > MAX_TIME_MS) throw badField("ttl", "ttl would expire the invite after the year 9999");
      const { ttl: _ttl, ...rest } = body;
      return {
        ...rest,
        singleUse: body.singleUse ?? false,
        keyId: randomHex(8),
        expirationTime: new Date(expiresAt).toISOString(),
      };
    },
    // The code is shown once, on create; it is not stored.
    respond: (wire) => ({ ...wire, code: `invite_${randomHex(16)}` }),
  },
};
