// The access bench's program (bench/access.ts): one binding of `roleUid` on `folder` for each identity listed in
// `identitiesFile`, held by one GroupAccess (`form: group-access`) or declared as one RoleBinding each
// (`form: role-binding`).
//
// Plain JavaScript, as bench/stack: no TypeScript compile in the measured time.
// Credentials: platform:apiUrl and platform:token (secret).
"use strict";
const fs = require("node:fs");
const pulumi = require("@pulumi/pulumi");
const platform = require("pulumi-platform");

const config = new pulumi.Config();
const folder = config.require("folder");
const roleUid = config.require("roleUid");
const identities = JSON.parse(fs.readFileSync(config.require("identitiesFile"), "utf8"));
const form = config.require("form");

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
