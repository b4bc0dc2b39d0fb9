/** schema.json must be exactly what provider/schema.ts derives from the zod schemas (run `npm run schema`). */
import * as fs from "node:fs";
import * as path from "node:path";
import { buildPackageSchema, renderPackageSchema } from "../../provider/schema";

const file = path.resolve(__dirname, "../../schema.json");

describe("schema.json", () => {
  it("matches the code (regenerate with `npm run schema`)", () => {
    expect(fs.readFileSync(file, "utf8")).toBe(renderPackageSchema());
  });

  it("names the package platform and lists every resource and function", () => {
    const schema = buildPackageSchema() as {
      name: string;
      resources: Record<
        string,
        { requiredInputs: string[]; inputProperties: Record<string, { willReplaceOnChanges?: boolean }> }
      >;
      functions: Record<string, unknown>;
      config: { variables: Record<string, { secret?: boolean }> };
    };
    expect(schema.name).toBe("platform");
    expect(Object.keys(schema.resources).sort()).toEqual(
      [
        "platform:iam:Group",
        "platform:iam:Identity",
        "platform:iam:Role",
        "platform:iam:RoleBinding",
        "platform:iam:GroupAccess",
        "platform:iam:IdentityAccess",
        "platform:iam:IdentityProvider",
        "platform:iam:GroupInvite",
        "platform:iam:AccountAssociation",
      ].sort(),
    );
    expect(Object.keys(schema.functions).sort()).toEqual(
      [
        "platform:iam:getEffectiveAccess",
        "platform:iam:getGroup",
        "platform:iam:getIdentity",
        "platform:iam:getIdentityProviders",
        "platform:iam:getRole",
        "platform:iam:getRoles",
        "platform:registry:getRepo",
        "platform:registry:getRepos",
        "platform:registry:getTags",
        "platform:vulnerabilities:getAdvisories",
      ].sort(),
    );
    // Derived from the zod schemas and the diff's field specs, not written by hand:
    expect(schema.resources["platform:iam:Group"]!.requiredInputs).toEqual(["name"]);
    expect(schema.resources["platform:iam:Group"]!.inputProperties.parentUid!.willReplaceOnChanges).toBe(
      true,
    );
    expect(
      schema.resources["platform:iam:Group"]!.inputProperties.name!.willReplaceOnChanges,
    ).toBeUndefined();
    expect(schema.resources["platform:iam:RoleBinding"]!.requiredInputs.sort()).toEqual([
      "groupUid",
      "identityUid",
      "roleUid",
    ]);
    expect(schema.config.variables.token!.secret).toBe(true);
    expect(schema.config.variables.identityToken!.secret).toBe(true);
  });
});

describe("schema.json secrets", () => {
  it("marks the identity provider's clientSecret and the invite's code secret, and nothing else of theirs", () => {
    type Props = Record<string, { secret?: boolean; willReplaceOnChanges?: boolean }>;
    const resources = buildPackageSchema().resources as Record<
      string,
      { inputProperties: Props; properties: Props }
    >;
    const secretKeys = (props: Props) =>
      Object.entries(props)
        .filter(([, p]) => p.secret === true)
        .map(([k]) => k);
    const idp = resources["platform:iam:IdentityProvider"]!;
    expect(secretKeys(idp.inputProperties)).toEqual(["clientSecret"]);
    expect(secretKeys(idp.properties)).toEqual(["clientSecret"]);
    const invite = resources["platform:iam:GroupInvite"]!;
    expect(secretKeys(invite.properties)).toEqual(["code"]);
    // No update in the API: every input of an invite replaces it.
    for (const key of ["groupUid", "roleUid", "ttl", "email", "singleUse"])
      expect(invite.inputProperties[key]!.willReplaceOnChanges).toBe(true);
  });
});
