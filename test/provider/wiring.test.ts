/**
 * Resource classes under pulumi.runtime.setMocks: type tokens, inputs reaching the engine, outputs wired
 * back, static get() reading by id, and secrets. Mocks never run provider code (PULUMI-NOTES), so the
 * provider methods have their own tests against the emulator.
 */
import * as pulumi from "@pulumi/pulumi";

// In a source checkout the provider is not under node_modules, so Pulumi would serialize its code by
// value (slow, and not what users get). What users get is covered by serialization.test.ts; here the
// serializer returns a marker so the tests look at wiring only.
jest.mock("@pulumi/pulumi/runtime/closure/serializeClosure", () => ({
  serializeFunction: async () => ({
    text: "exports.handler = () => provider; // serialized in serialization.test.ts",
    containsSecrets: false,
  }),
}));

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  id?: string | undefined;
}
const registered: Registered[] = [];

pulumi.runtime.setMocks(
  {
    newResource(args: pulumi.runtime.MockResourceArgs) {
      registered.push({ type: args.type, name: args.name, inputs: args.inputs, id: args.id || undefined });
      // The mock monitor passes id "" for a new resource and the id for a read (static get).
      const uid = args.id || `0123456789abcdef/${"a".repeat(16)}`;
      const state: Record<string, unknown> = { ...args.inputs, uid, createTime: "2026-01-01T00:00:00.000Z" };
      if (args.id) state.name = "read-from-service";
      return { id: uid, state };
    },
    call: () => ({}),
  },
  "project",
  "stack",
  false,
);

// Imported after setMocks so resources register against the mock monitor.
import * as platform from "../../provider";

function value<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((v) => resolve(v)));
}

function isSecret<T>(output: pulumi.Output<T>): Promise<boolean> {
  return pulumi.isSecret(output);
}

beforeEach(() => {
  registered.length = 0;
});

describe("resource classes", () => {
  it("Group registers pulumi-nodejs:dynamic/iam:Group with its inputs and exposes outputs", async () => {
    const group = new platform.iam.Group("eng", {
      name: "eng",
      description: "d",
      parentUid: "0123456789abcdef",
    });
    expect(await value(group.uid)).toBe(`0123456789abcdef/${"a".repeat(16)}`);
    expect(await value(group.name)).toBe("eng");
    expect(await value(group.createTime)).toBe("2026-01-01T00:00:00.000Z");
    const reg = registered.find((r) => r.name === "eng")!;
    expect(reg.type).toBe("pulumi-nodejs:dynamic/iam:Group");
    expect(reg.inputs).toMatchObject({ name: "eng", description: "d", parentUid: "0123456789abcdef" });
    expect(typeof reg.inputs.__provider).toBe("string");
  });

  it.each([
    [
      "Identity",
      () =>
        new platform.iam.Identity("id", {
          parentUid: "0123456789abcdef",
          name: "ci",
          claimMatch: { issuer: "i", subject: "s" },
        }),
    ],
    [
      "Role",
      () =>
        new platform.iam.Role("role", {
          parentUid: "0123456789abcdef",
          name: "r",
          capabilities: ["CAP_REPO_LIST"],
        }),
    ],
    [
      "RoleBinding",
      () =>
        new platform.iam.RoleBinding("rb", {
          groupUid: "0123456789abcdef",
          identityUid: "0123456789abcdef/aaaaaaaaaaaaaaaa",
          roleUid: "b".repeat(40),
        }),
    ],
  ])("%s registers the iam type token and wires uid", async (type, make) => {
    const resource = make() as pulumi.CustomResource & { uid: pulumi.Output<string> };
    expect(await value(resource.uid)).toMatch(/^0123456789abcdef\//);
    expect(registered.at(-1)!.type).toBe(`pulumi-nodejs:dynamic/iam:${type}`);
  });

  it("static get() reads by id and exposes the read state", async () => {
    const group = platform.iam.Group.get("existing", "0123456789abcdef/bbbbbbbbbbbbbbbb", undefined, {
      profile: "orgb",
    });
    expect(await value(group.name)).toBe("read-from-service");
    const reg = registered.find((r) => r.name === "existing")!;
    expect(reg.id).toBe("0123456789abcdef/bbbbbbbbbbbbbbbb");
    expect(reg.inputs.profile).toBe("orgb");
  });

  it("a secret input stays secret on its output; the registered inputs hold no credential", async () => {
    const identity = new platform.iam.Identity("sec", {
      parentUid: "0123456789abcdef",
      name: "ci",
      description: pulumi.secret("internal"),
      claimMatch: { issuer: "i", subject: "s" },
      profile: "orgb",
    });
    expect(await isSecret(identity.description)).toBe(true);
    expect(await isSecret(identity.name)).toBe(false);
    const reg = registered.find((r) => r.name === "sec")!;
    expect(Object.keys(reg.inputs).filter((k) => /token|password|secret/i.test(k))).toEqual([]);
  });
});
