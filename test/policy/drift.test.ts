/**
 * What the policy pack repeats from the rest of the project, checked against its source: the package version
 * (the pack is versioned with the provider), the resource types of both fronts, the emulator's owner role uid, and
 * the docs page listing every rule and setting.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { builtinRoleByName } from "../../emulator/access";
import { RESOURCES } from "../../provider/catalogue";
import { dynamicType } from "../../provider/core/resource-class";
import { EMULATOR_OWNER_ROLE_UID, RESOURCE_KINDS, kindOf, typesOf } from "../../policy/resources";
import { POLICIES } from "../../policy/rules";

const root = path.resolve(__dirname, "..", "..");
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), "utf8"));

test("the pack has the provider's version and the repository's @pulumi versions", () => {
  const pack = readJson("policy/package.json");
  const provider = readJson("package.json");
  expect(pack.version).toBe(provider.version);
  expect(pack.dependencies["@pulumi/pulumi"]).toBe(provider.dependencies["@pulumi/pulumi"]);
  expect(pack.dependencies["@pulumi/policy"]).toBe(provider.devDependencies["@pulumi/policy"]);
});

test("every kind the pack reads that the provider serves has the provider's native and dynamic type", () => {
  const served = RESOURCES.map((r) => r.declaration.token);
  const read = RESOURCE_KINDS.filter((kind) => served.includes(typesOf(kind)[0]));
  expect(read).toEqual(
    expect.arrayContaining(["Identity", "Role", "RoleBinding", "Group", "GroupInvite", "IdentityProvider"]),
  );
  for (const kind of read) {
    const [native, dynamic] = typesOf(kind);
    expect(dynamic).toBe(dynamicType("iam", kind));
    expect([kindOf(native), kindOf(dynamic)]).toEqual([kind, kind]);
  }
});

test("the default owner role uid is the emulator's built-in owner", () => {
  expect(EMULATOR_OWNER_ROLE_UID).toBe(builtinRoleByName("owner").uid);
});

test("docs/policy-pack.md describes every rule, its enforcement level and its settings", () => {
  const doc = fs.readFileSync(path.join(root, "docs", "policy-pack.md"), "utf8");
  for (const policy of POLICIES) {
    const section = doc.split(/^### /m).find((s) => s.startsWith(`\`${policy.name}\``));
    expect({ rule: policy.name, documented: section !== undefined }).toEqual({
      rule: policy.name,
      documented: true,
    });
    expect(section).toContain(policy.enforcementLevel!);
    for (const key of Object.keys(policy.configSchema?.properties ?? {}))
      expect(section).toContain(`\`${key}\``);
  }
});
