/**
 * The dynamic provider of platform.iam.GroupInvite. The API has no update, so every input replaces; the
 * kit's update only ever records a new profile.
 *
 * Two values cannot be read back and are carried over from the previous state by read:
 * - `code`, returned by the service only at creation (a secret output), and
 * - `ttl`, which the service turns into `expirationTime` at creation.
 * An invite that has expired is still read as it is while the service keeps it; once the service deletes
 * it, read reports it gone and the next `up` creates a new invite (with a new code).
 *
 * Exported as the WHOLE module so Pulumi serializes a `require()` of the installed package.
 *
 * May import: ../core, ../../sdk, ./group-invite-schema.
 */
import type * as pulumi from "@pulumi/pulumi";
import { defineResourceProvider } from "../core/resource-provider";
import { parentOf } from "../core/create";
import {
  GROUP_INVITE_FIELDS,
  GroupInviteInputs,
  GroupInviteInputSchema,
  durationSeconds,
  protoDuration,
} from "./group-invite-schema";
import type { GroupInvite } from "../../sdk";

type Props = Record<string, unknown>;

const kit = defineResourceProvider<GroupInviteInputs, GroupInvite>({
  type: "platform:iam:GroupInvite",
  inputSchema: GroupInviteInputSchema,
  fields: GROUP_INVITE_FIELDS,
  describe: (inputs) => ({
    where: inputs.groupUid ? `for role ${inputs.roleUid} on group ${inputs.groupUid}` : undefined,
  }),
  get: (client, uid) => client.groupInvites.get(uid),
  create: (client, inputs) =>
    client.groupInvites.create(inputs.groupUid, {
      roleUid: inputs.roleUid,
      ttl: protoDuration(inputs.ttl),
      email: inputs.email || undefined,
      singleUse: inputs.singleUse,
    }),
  // Invites have no natural key and their code cannot be read back: nothing to adopt or recover. After an
  // ambiguous create failure the create is sent once more; an orphaned first invite's code was never
  // shown to anyone and expires with its ttl.
  lookup: async () => undefined,
  delete: (client, uid) => client.groupInvites.delete(uid),
  inputsOf: (invite) => ({
    groupUid: parentOf(invite.uid) ?? "",
    roleUid: invite.roleUid ?? invite.role?.uid ?? "",
    ttl: "", // not returned by the service: carried over from state by carry() below
    email: invite.email ?? "",
    singleUse: invite.singleUse ?? false,
  }),
  outputsOf: (invite) => ({
    uid: invite.uid,
    code: invite.code,
    expirationTime: invite.expirationTime,
    keyId: invite.keyId,
    role: invite.role,
    createTime: invite.createTime,
  }),
});

/** Copies the values the service does not return (ttl, code) from `from` into a property map. */
function carry(
  props: Props | undefined,
  from: Props | undefined,
  keys: readonly string[],
): Props | undefined {
  if (props === undefined) return props;
  const out = { ...props };
  for (const key of keys) {
    const value = from?.[key];
    if (typeof value === "string" && value !== "") out[key] = value;
    else if (out[key] === "") delete out[key];
  }
  return out;
}

/** Defaults the optional booleans so a live `singleUse: false` is no change. */
function withDefaults(news: GroupInviteInputs): GroupInviteInputs {
  return { ...news, singleUse: news.singleUse ?? false };
}

const provider: pulumi.dynamic.ResourceProvider = {
  ...kit,
  async check(olds: GroupInviteInputs, news: GroupInviteInputs) {
    return kit.check!(olds, withDefaults(news));
  },
  async diff(id: string, olds: Props, news: GroupInviteInputs) {
    // "72h" and "259200s" are the same ttl: no replacement for rewriting it.
    const same =
      typeof olds.ttl === "string" &&
      typeof news.ttl === "string" &&
      durationSeconds(olds.ttl) !== undefined &&
      durationSeconds(olds.ttl) === durationSeconds(news.ttl);
    return kit.diff!(id, olds, same ? { ...news, ttl: olds.ttl as string } : news);
  },
  async create(inputs: GroupInviteInputs) {
    const result = await kit.create(inputs);
    return { ...result, outs: carry(result.outs, inputs as Props, ["ttl"]) };
  },
  async read(id: string, props?: Props) {
    const result = await kit.read!(id, props);
    if (result.id === undefined) return result;
    return {
      ...result,
      props: carry(result.props, props, ["ttl", "code"]),
      inputs: carry(result.inputs, props, ["ttl"]),
    };
  },
};

export = provider;
