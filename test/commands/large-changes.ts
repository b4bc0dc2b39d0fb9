/**
 * Changes of real size, as a reviewer meets them, built in process (no emulator): 300 new folders each with a CI
 * workload identity bound to the role `deployer` on it (3 of them to the built-in `editor` instead), reviewed with
 * `--since` an earlier review of the organization; and the plan of 1,000 new folders, each with its CI identity and a
 * binding to `deployer` on it, as `pulumi preview --json` prints it.
 */
import { BUILTIN_ROLES } from "../../emulator";
import { readPreviousReview } from "../../commands/access/changes";
import { planAccess, type AccessPlan, type Organization } from "../../commands/access/plan";
import { planOfPreview } from "../../commands/access/preview-json";
import type { AccessData } from "../../commands/access/read";
import { review, type Review } from "../../commands/access/review";
import { previewJson, ref, type FixtureResource } from "./plan-fixtures";

export const LARGE_ORG = "d".repeat(40);
const hex = (n: number) => n.toString(16).padStart(16, "0");
const builtin = (name: string) => BUILTIN_ROLES.find((r) => r.name === name)!;
export const DEPLOYER = {
  uid: `${LARGE_ORG}/${hex(0xdead)}`,
  name: "deployer",
  capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"],
};
const OWNER = `${"0".repeat(39)}1`;

/** The organization with `folders` folders, each with `ci-N` bound to deployer (or editor, for `editors`). */
function organization(folders: number, editors: ReadonlySet<number>): AccessData {
  const top = { uid: LARGE_ORG, name: "acme" };
  const groups = Array.from({ length: folders }, (_, i) => ({
    uid: `${LARGE_ORG}/${hex(i + 1)}`,
    name: `team-${i}`,
  }));
  const identities = groups.map((g, i) => ({ uid: `${g.uid}/${hex(0x100000 + i)}`, name: `ci-${i}` }));
  const editor = builtin("editor");
  const ownerRole = builtin("owner");
  const roles = [DEPLOYER, editor, ownerRole].map((r) => ({
    uid: r.uid,
    name: r.name,
    capabilities: r.capabilities,
  }));
  const bindings = [
    {
      uid: `${LARGE_ORG}/${hex(0xb0000)}`,
      group: top,
      identity: { uid: OWNER, name: "alice" },
      role: ownerRole,
    },
    ...identities.map((identity, i) => {
      const role = editors.has(i) ? editor : DEPLOYER;
      return {
        uid: `${groups[i]!.uid}/${hex(0xb0001 + i)}`,
        group: groups[i]!,
        identity: { uid: identity.uid, name: identity.name },
        role: { uid: role.uid, name: role.name },
      };
    }),
  ];
  return {
    top,
    groups: [top, ...groups],
    identities,
    roles,
    bindings,
    caller: OWNER,
    partial: [],
    calls: 5,
  } as unknown as AccessData;
}

/** Three of the 300 are bound to the built-in editor (privileged) instead of deployer. */
export const EDITOR_FOLDERS = new Set([17, 150, 262]);

/** The 300-folder review, compared with the review of the organization before the folders were made. */
export function largeReview(folders = 300): Review {
  const before = review(organization(0, new Set()), { now: new Date("2026-11-01T00:00:00Z") });
  const since = readPreviousReview(JSON.stringify(before), "before.json", LARGE_ORG);
  return review(organization(folders, EDITOR_FOLDERS), { now: new Date("2026-11-28T00:00:00Z"), since });
}

/** The plan of `folders` new folders, each with its CI identity bound to deployer on it. */
export function largePlan(folders = 1000): AccessPlan {
  const resources: FixtureResource[] = [];
  for (let i = 0; i < folders; i++) {
    resources.push(
      { kind: "Group", name: `team-${i}`, op: "create", inputs: { parentUid: LARGE_ORG, name: `team-${i}` } },
      {
        kind: "Identity",
        name: `ci-${i}`,
        op: "create",
        inputs: { parentUid: ref(`team-${i}`), name: `ci-${i}` },
      },
      {
        kind: "RoleBinding",
        name: `ci-${i}-deployer`,
        op: "create",
        inputs: { groupUid: ref(`team-${i}`), identityUid: ref(`ci-${i}`), roleUid: DEPLOYER.uid },
      },
    );
  }
  const live: Organization = {
    listed: true,
    groups: [{ uid: LARGE_ORG, name: "acme" }],
    identities: [{ uid: OWNER, name: "alice" }],
    roles: [
      DEPLOYER,
      ...BUILTIN_ROLES.map((r) => ({ uid: r.uid, name: r.name, capabilities: r.capabilities })),
    ],
    bindings: [
      { uid: `${LARGE_ORG}/${hex(0xb0000)}`, group: LARGE_ORG, identity: OWNER, role: builtin("owner").uid },
    ],
  };
  return planAccess(planOfPreview(previewJson(resources, "native"), "preview.json"), live);
}
