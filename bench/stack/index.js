// The benchmark stack: `groups` folders and `identities` workload identities under one organization, and
// `bindings` role bindings pairing them (every pair distinct), all granting the same role. Optionally reads every
// repo of the organization through the getRepos data source (`readRepos: true`), to count its list calls.
//
// Plain JavaScript on purpose: no TypeScript compile in the measured time, and the repo's type check (which
// covers bench/) does not depend on this program's node_modules being installed.
//
// Config (all plain): organization (uid), roleUid, groups (50), identities (50), bindings (100), readRepos (false),
// library: "pulumi-platform" (default) or "pulumi-platform-bench-minimal" (bench/minimal, the reference floor).
// Credentials: platform:apiUrl and platform:token (secret), or PLATFORM_API_URL / PLATFORM_TOKEN.
"use strict";
const pulumi = require("@pulumi/pulumi");

const config = new pulumi.Config();
const platform = require(config.get("library") ?? "pulumi-platform");
const organization = config.require("organization");
const roleUid = config.require("roleUid");
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

// Binding k pairs group (k mod G) with identity (k + floor(k / G)) mod I: distinct pairs while k < G * I.
for (let k = 0; k < bindingCount; k++) {
  new platform.iam.RoleBinding(`binding-${pad(k)}`, {
    groupUid: groups[k % groupCount].uid,
    identityUid: identities[(k + Math.floor(k / groupCount)) % identityCount].uid,
    roleUid,
  });
}

if (config.getBoolean("readRepos")) {
  exports.repoCount = platform.registry
    .getReposOutput({ organizationUid: organization })
    .repos.apply((repos) => repos.length);
}
