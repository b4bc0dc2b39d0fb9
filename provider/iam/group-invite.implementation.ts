/**
 * The implementation of the dynamic provider of platform.iam.GroupInvite. The API has no update, so every input replaces; the
 * kit's update only ever records a new profile.
 *
 * The expiry is given as a `ttl` or as an `expirationTime`; the API's create takes a duration, so an
 * expirationTime is sent as the time left until it. Values the service does not return are carried over
 * from the previous state by read, so refresh shows no diff:
 * - `code`, returned by the service only at creation (a secret output);
 * - `ttl`, which the service turns into `expirationTime` at creation;
 * - the program's `expirationTime`, when it gave one: state keeps the program's value (the service's own is
 *   the same instant give or take the request's latency), so diff compares it with the previous input.
 * An invite that has expired is still read as it is while the service keeps it; once the service deletes
 * it, read reports it gone and the next `up` creates a new invite (with a new code).
 *
 * Loaded by ./group-invite.provider on its first call, in the provider process.
 */
import { nameText, said } from "../../sdk/words";
import { capabilitiesOfRole, objectEffect, referenceNeeds, roleWords } from "../core/access-review";
import type * as pulumi from "@pulumi/pulumi";
import { UNKNOWN } from "../core/check";
import {
  deriveDescription,
  dynamicProvider,
  resourceOperations,
  type ResourceOperations,
} from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import {
  GROUP_INVITE,
  type GroupInviteInputs,
  durationSeconds,
  durationUntil,
  protoDuration,
} from "./group-invite.declaration";
import type { GroupInvite, GroupInviteCreate } from "../../sdk";

type Props = Record<string, unknown>;

/** The ttl the API's create takes: the program's, or the time left until its expirationTime. */
function ttlOf(inputs: GroupInviteInputs): string {
  if (inputs.ttl !== undefined) return protoDuration(inputs.ttl);
  const left = durationUntil(inputs.expirationTime ?? "", Date.now());
  if (left === undefined)
    throw new Error(`expirationTime ${inputs.expirationTime ?? "(none)"} is not in the future`);
  return left;
}

export const description = deriveDescription<GroupInviteInputs, GroupInvite>({
  // At preview: what creating it needs; its role is a grant (no escalation).
  accessEffect: objectEffect({
    collection: "groupInvites",
    parentKey: "groupUid",
    reads: ["roleUid"],
    grants: (news, facts) => ({
      capabilities: capabilitiesOfRole(facts, String(news.roleUid)),
      what: roleWords(facts, String(news.roleUid)),
      needs: referenceNeeds(String(news.roleUid)),
    }),
  }),
  declaration: GROUP_INVITE,
  describe: (inputs) => ({
    where: inputs.groupUid
      ? said`for role ${nameText(String(inputs.roleUid))} on group ${nameText(inputs.groupUid)}`
      : undefined,
  }),
  wire: {
    // The API's create takes a duration: a ttl, or the time left until the program's expirationTime.
    send: {
      ttl: (inputs) => ({ ttl: ttlOf(inputs) }),
      expirationTime: () => ({}),
      email: (inputs) => ({ email: inputs.email || undefined }),
    },
    // ttl is not returned by the service; expirationTime is the live one. withExpiry() below sets both right.
    read: {
      groupUid: (invite) => parentOf(invite.uid) ?? "",
      roleUid: (invite) => invite.roleUid ?? invite.role?.uid ?? "",
      ttl: () => undefined,
    },
  },
  get: (client, uid) => client.groupInvites.get(uid),
  create: (client, inputs, body) => client.groupInvites.create(inputs.groupUid, body as GroupInviteCreate),
  // Invites have no natural key and their code cannot be read back: nothing to adopt or recover. After an
  // ambiguous create failure the create is sent once more; an orphaned first invite's code was never
  // shown to anyone and expires with its ttl.
  lookup: async () => undefined,
  delete: (client, uid) => client.groupInvites.delete(uid),
  outputsOf: (invite) => ({
    uid: invite.uid,
    code: invite.code,
    expirationTime: invite.expirationTime,
    keyId: invite.keyId,
    createTime: invite.createTime,
  }),
});

const kit = resourceOperations(description);

/**
 * How the program gave the expiry, judged from its previous inputs or state: a ttl, its own
 * expirationTime, or nothing known (a read by uid alone, where the live expirationTime stands).
 */
function expiryOf(previous: Props | undefined): { ttl?: string; expirationTime?: string } {
  if (typeof previous?.ttl === "string" && previous.ttl !== "") return { ttl: previous.ttl };
  if (typeof previous?.expirationTime === "string") return { expirationTime: previous.expirationTime };
  return {};
}

/** Inputs or outputs with the expiry the program gave (see expiryOf). */
function withExpiry(props: Props, previous: Props | undefined, isOutput: boolean): Props {
  const expiry = expiryOf(previous);
  const out = { ...props };
  if (expiry.ttl !== undefined) {
    out.ttl = expiry.ttl;
    // In ttl form the live expirationTime is an output only.
    if (!isOutput) delete out.expirationTime;
  } else if (expiry.expirationTime !== undefined) {
    out.expirationTime = expiry.expirationTime;
  }
  return out;
}

/** Defaults the optional booleans so a live `singleUse: false` is no change. */
function withDefaults(news: Props): Props {
  return { ...news, singleUse: news.singleUse ?? false };
}

export const resource: ResourceOperations = {
  ...kit,
  async check(olds: Props, news: Props) {
    const result = await kit.check(olds, withDefaults(news));
    // A new or changed expirationTime must lie ahead; an unchanged one may have passed since creation.
    const expiration = (news as GroupInviteInputs).expirationTime;
    const isNew = expiration !== undefined && expiration !== UNKNOWN && expiration !== olds?.expirationTime;
    if (isNew && !result.failures?.length && !(Date.parse(expiration) > Date.now())) {
      return {
        ...result,
        failures: [
          { property: "expirationTime", reason: `expirationTime ${expiration} is not in the future` },
        ],
      };
    }
    return result;
  },
  async diff(id: string, olds: Props, news: Props) {
    // In ttl form the state's expirationTime is the service's, not an input: leave it out of the comparison.
    const previous = expiryOf(olds).ttl !== undefined ? { ...olds, expirationTime: undefined } : olds;
    // "72h" and "259200s" are the same ttl: no replacement for rewriting it.
    const sameTtl =
      typeof olds.ttl === "string" &&
      typeof news.ttl === "string" &&
      durationSeconds(olds.ttl) !== undefined &&
      durationSeconds(olds.ttl) === durationSeconds(news.ttl);
    return kit.diff(id, previous, sameTtl ? { ...news, ttl: olds.ttl } : news);
  },
  async create(inputs: Props) {
    const result = await kit.create(inputs);
    return { ...result, outs: withExpiry(result.outs, inputs, true) };
  },
  async read(id: string, props?: Props) {
    const result = await kit.read(id, props);
    if (result.id === undefined || result.props === undefined) return result;
    // The code is shown once, at creation: keep it.
    const code = typeof props?.code === "string" ? { code: props.code } : {};
    return {
      ...result,
      props: { ...withExpiry(result.props, props, true), ...code },
      inputs: withExpiry(result.inputs ?? {}, props, false),
    };
  },
};

export const provider: pulumi.dynamic.ResourceProvider = dynamicProvider(resource);
