// The access bench's program (bench/access.ts): one binding of `roleUid` on `folder` for each identity listed in
// `identitiesFile`, held by one GroupAccess (`form: group-access`) or declared as one RoleBinding each
// (`form: role-binding`).
//
// `form: org-group-access` / `org-role-binding`: the stack bench's organization (bench/stack/organization.js:
// `groups` folders, `identities` workload identities under `organization`, `bindings` bindings pairing them), its
// bindings held by one GroupAccess per group or declared as one RoleBinding each.
//
// Plain JavaScript, as bench/stack: no TypeScript compile in the measured time.
// Credentials: platform:apiUrl and platform:token (secret).
"use strict";
const fs = require("node:fs");
const pulumi = require("@pulumi/pulumi");
const platform = require("pulumi-platform");
const { benchOrganization, pad } = require("../stack/organization");

const config = new pulumi.Config();
const roleUid = config.require("roleUid");
const form = config.require("form");

if (form === "org-group-access" || form === "org-role-binding") organizationProgram();
else folderProgram();

function folderProgram() {
  const folder = config.require("folder");
  const identities = JSON.parse(fs.readFileSync(config.require("identitiesFile"), "utf8"));

  if (form === "group-access") {
    new platform.iam.GroupAccess("folder-access", {
      groupUid: folder,
      bindings: identities.map((identityUid) => ({ identityUid, roleUid })),
    });
  } else if (form === "role-binding") {
    identities.forEach((identityUid, i) => {
      new platform.iam.RoleBinding(`binding-${String(i).padStart(4, "0")}`, {
        groupUid: folder,
        identityUid,
        roleUid,
      });
    });
  } else {
    throw new Error(`form is group-access or role-binding, not ${JSON.stringify(form)}`);
  }
}

function organizationProgram() {
  const pairs = benchOrganization(platform, config);
  if (form === "org-role-binding") {
    for (const { name, group, identity } of pairs) {
      new platform.iam.RoleBinding(name, { groupUid: group.uid, identityUid: identity.uid, roleUid });
    }
    return;
  }
  // One GroupAccess per group that has bindings, in the groups' order.
  const accesses = new Map();
  for (const { groupIndex, group, identity } of pairs) {
    if (!accesses.has(groupIndex)) accesses.set(groupIndex, { groupUid: group.uid, bindings: [] });
    accesses.get(groupIndex).bindings.push({ identityUid: identity.uid, roleUid });
  }
  for (const [groupIndex, args] of [...accesses].sort(([a], [b]) => a - b)) {
    new platform.iam.GroupAccess(`access-${pad(groupIndex)}`, args);
  }
}
