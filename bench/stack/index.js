// The benchmark stack: `groups` folders and `identities` workload identities under one organization, and
// `bindings` role bindings pairing them (every pair distinct), all granting the same role (./organization.js).
// Optionally reads every repo of the organization through the getRepos data source (`readRepos: true`), to count
// its list calls.
//
// Plain JavaScript on purpose: no TypeScript compile in the measured time, and the repo's type check (which
// covers bench/) does not depend on this program's node_modules being installed.
//
// Config (all plain): organization (uid), roleUid, groups (50), identities (50), bindings (100), readRepos (false),
// library: "pulumi-platform" (default) or "pulumi-platform-bench-minimal" (bench/minimal, the reference floor).
// Credentials: platform:apiUrl and platform:token (secret), or PLATFORM_API_URL / PLATFORM_TOKEN.
"use strict";
const pulumi = require("@pulumi/pulumi");
const { benchOrganization } = require("./organization");

const config = new pulumi.Config();
const platform = require(config.get("library") ?? "pulumi-platform");
const roleUid = config.require("roleUid");

for (const { name, group, identity } of benchOrganization(platform, config)) {
  new platform.iam.RoleBinding(name, { groupUid: group.uid, identityUid: identity.uid, roleUid });
}

if (config.getBoolean("readRepos")) {
  exports.repoCount = platform.registry
    .getReposOutput({ organizationUid: config.require("organization") })
    .repos.apply((repos) => repos.length);
}
