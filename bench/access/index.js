// The access bench's program (bench/access.ts): one binding of `roleUid` on `folder` for each identity listed in
// `identitiesFile`, held by one GroupAccess (`form: group-access`) or declared as one RoleBinding each
// (`form: role-binding`).
//
// `form: org-group-access` / `org-role-binding`: the stack bench's organization (bench/stack: `groups` folders,
// `identities` workload identities under `organization`, `bindings` bindings pairing them), its bindings held by one
// GroupAccess per group or declared as one RoleBinding each.
//
// Plain JavaScript, as bench/stack: no TypeScript compile in the measured time.
// Credentials: platform:apiUrl and platform:token (secret).
"use strict";
const fs = require("node:fs");
const pulumi = require("@pulumi/pulumi");
const platform = require("pulumi-platform");

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
  const organization = config.require("organization");
  const groupCount = config.getNumber("groups") ?? 50;
  const identityCount = config.getNumber("identities") ?? 50;
  const bindingCount = config.getNumber("bindings") ?? 100;
  const pad = (i) => String(i).padStart(3, "0");
  const groups = Array.from(
    { length: groupCount },
    (_, i) =>
      new platform.iam.Group(`group-${pad(i)}`, {
        parentUid: organization,
        name: `bench-group-${pad(i)}`,
        description: `benchmark folder ${i}`,
      }),
  );
  const identities = Array.from(
    { length: identityCount },
    (_, i) =>
      new platform.iam.Identity(`identity-${pad(i)}`, {
        parentUid: organization,
        name: `bench-identity-${pad(i)}`,
        claimMatch: { issuer: "https://ci.example.com", subject: `pipeline-${i}` },
      }),
  );
  // As bench/stack: binding k pairs group (k mod G) with identity (k + floor(k / G)) mod I.
  const byGroup = groups.map(() => []);
  for (let k = 0; k < bindingCount; k++) {
    const identity = identities[(k + Math.floor(k / groupCount)) % identityCount];
    if (form === "org-role-binding")
      new platform.iam.RoleBinding(`binding-${pad(k)}`, {
        groupUid: groups[k % groupCount].uid,
        identityUid: identity.uid,
        roleUid,
      });
    else byGroup[k % groupCount].push({ identityUid: identity.uid, roleUid });
  }
  if (form === "org-group-access")
    groups.forEach((group, i) => {
      if (byGroup[i].length > 0)
        new platform.iam.GroupAccess(`access-${pad(i)}`, { groupUid: group.uid, bindings: byGroup[i] });
    });
}
