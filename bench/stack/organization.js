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
  // Object i of a kind is `<kind>-<i>` in the program and `bench-<kind>-<i>` in the organization (i padded).
  const declareEach = (kind, Resource, count, argsOf) =>
    Array.from(
      { length: count },
      (_, i) =>
        new Resource(`${kind}-${pad(i)}`, {
          parentUid: organization,
          name: `bench-${kind}-${pad(i)}`,
          ...argsOf(i),
        }),
    );
  const groups = declareEach("group", platform.iam.Group, groupCount, (i) => ({
    description: `benchmark folder ${i}`,
  }));
  const identities = declareEach("identity", platform.iam.Identity, identityCount, (i) => ({
    claimMatch: { issuer: "https://ci.example.com", subject: `pipeline-${i}` },
  }));
  // Binding k pairs group (k mod G) with identity (k + floor(k / G)) mod I: distinct pairs while k < G * I.
  return Array.from({ length: bindingCount }, (_, k) => ({
    name: `binding-${pad(k)}`,
    groupIndex: k % groupCount,
    group: groups[k % groupCount],
    identity: identities[(k + Math.floor(k / groupCount)) % identityCount],
  }));
}

module.exports = { benchOrganization, pad };
