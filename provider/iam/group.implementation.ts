/**
 * The implementation of the dynamic provider of platform.iam.Group: organizations (no parentUid) and folders (parentUid set).
 *
 * Loaded by ./group.provider on its first call, in the provider process. It captures no client and no
 * credential: see ../core/client.
 */
import { childNamed } from "../core/create";
import { nameText, nounUnder, pluralOf, said, type Words } from "../../sdk/words";
import { objectAccess } from "../core/access-review";
import { withGroup, withoutGroup } from "../core/live-facts";
import type * as pulumi from "@pulumi/pulumi";
import { deriveDescription, dynamicProvider, resourceOperations } from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import { GROUP, type GroupInputs } from "./group.declaration";
import type { Group, GroupCreate, GroupUpdate } from "../../sdk";

const BLOCKERS_PER_KIND = 10;

export const description = deriveDescription<GroupInputs, Group>({
  // At preview: what creating, changing or moving (replacing) it needs, and what a move revokes (docs: Preflight);
  // once written, the group (and its name) is in the facts the rest of the run reviews against.
  ...objectAccess<Group>({
    collection: "groups",
    parentKey: "parentUid",
    afterDelete: withoutGroup,
    written: withGroup,
    names: "group",
  }),
  declaration: GROUP,
  describe: (inputs) => ({
    name: inputs.name,
    where: inputs.parentUid ? said`under group ${nameText(inputs.parentUid)}` : said`as an organization`,
  }),
  wire: { read: { parentUid: (group) => parentOf(group.uid) } },
  get: (client, uid) => client.groups.get(uid),
  create: (client, inputs, body) => client.groups.create(inputs.parentUid, body as GroupCreate),
  // Without a parent only organizations (root uids) qualify.
  lookup: (client, inputs) =>
    childNamed((query) => client.groups.list(query), inputs.parentUid || undefined, inputs.name),
  update: (client, uid, patch) => client.groups.update(uid, patch as GroupUpdate),
  delete: (client, uid) => client.groups.delete(uid),
  // Names the direct children that keep a group from being deleted (a few of each kind).
  async describeBlockers(client, uid) {
    const query = { childrenOf: uid, pageSize: BLOCKERS_PER_KIND };
    type Page = { items: { uid: string; name?: string }[]; totalCount?: number | undefined };
    // What each kind under a group is called (../../sdk/words): a folder, a workload identity, a role, a repo.
    const kinds: [Words, () => PromiseLike<Page>][] = [
      [nounUnder("group"), () => client.groups.list(query)],
      [nounUnder("identity"), () => client.identities.list(query)],
      [nounUnder("role"), () => client.roles.list(query)],
      [said`repo`, () => client.repos.list(query)],
    ];
    const named: Words[] = [];
    for (const [noun, list] of kinds) {
      const page: Page = await Promise.resolve(list()).catch(() => ({ items: [], totalCount: 0 }));
      for (const item of page.items)
        named.push(said`${noun} ${nameText(item.name ?? "")} (${nameText(item.uid)})`);
      const more = (page.totalCount ?? page.items.length) - page.items.length;
      if (more > 0) named.push(said`${more} more ${more === 1 ? noun : pluralOf(noun)}`);
    }
    return named;
  },
  outputsOf: (group) => ({
    uid: group.uid,
    verified: group.verified ?? false,
    createTime: group.createTime,
  }),
});

export const resource = resourceOperations(description);

export const provider: pulumi.dynamic.ResourceProvider = dynamicProvider(resource);
