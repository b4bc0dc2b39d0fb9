// The stack bench's organization, declared by bench/stack and by bench/access (its `org-*` forms): `groups` folders
// and `identities` workload identities under `organization`, and `bindings` pairs of a group and an identity that
// the program binds (every pair distinct while bindings < groups × identities).
//
// Config (all plain): organization (uid), groups (50), identities (50), bindings (100).
"use strict";

const pad = (i) => String(i).padStart(3, "0");

/** Declares the groups and identities with `platform` (the library the program measures); answers the pairs. */
function benchOrganization(platform, config) {
  const organization = config.require("organization");
  const groupCount = config.getNumber("groups") ?? 50;
  const identityCount = config.getNumber("identities") ?? 50;
  const bindingCount = config.getNumber("bindings") ?? 100;
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
  return Array.from({ length: bindingCount }, (_, k) => ({
    name: `binding-${pad(k)}`,
    groupIndex: k % groupCount,
    group: groups[k % groupCount],
    identity: identities[(k + Math.floor(k / groupCount)) % identityCount],
  }));
}

module.exports = { benchOrganization, pad };
