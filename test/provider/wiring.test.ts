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

import { GROUP } from "../../provider/iam/group.declaration";

/** A resource whose state the mock engine makes up whole, and the value it gives each property. */
const ENGINE_STATE = "state-from-the-engine";
const fromEngine = (property: string) => `${property} as the engine has it`;

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
      const uid = args.id || `0123456789abcdef0123456789abcdef01234567/${"a".repeat(16)}`;
      // The engine's own state for a resource named ENGINE_STATE: each property a value no input holds (its id is
      // its uid).
      if (args.name === ENGINE_STATE)
        return {
          id: fromEngine("uid"),
          state: Object.fromEntries(GROUP.properties.map((p) => [p, fromEngine(p)])),
        };
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

// additionalSecretOutputs of each registration, by resource name (the mock monitor ignores them).
const secretOutputsRequested = new Map<string, string[]>();

/** An identity provider whose clientSecret is a plain string. */
const IDP_ARGS = {
  parentUid: "0123456789abcdef0123456789abcdef01234567",
  name: "okta",
  defaultRole: "b".repeat(40),
  issuer: "https://login.example.com",
  clientId: "c",
  clientSecret: "plain-string-secret",
};
{
  type Request = { getName(): string; getAdditionalsecretoutputsList(): string[] };
  const monitor = pulumi.runtime.getMonitor() as unknown as {
    registerResource(req: Request, callback: unknown): unknown;
  };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) => {
    secretOutputsRequested.set(req.getName(), req.getAdditionalsecretoutputsList());
    return register(req, callback);
  };
}

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
  it("Group exposes every property of its declaration as the engine's state has it, not as its inputs said", async () => {
    const group = new platform.iam.Group(ENGINE_STATE, {
      name: "eng",
      description: "d",
      parentUid: "0123456789abcdef0123456789abcdef01234567",
    });
    const outputs = group as unknown as Record<string, pulumi.Output<unknown>>;
    const read = await Promise.all(
      GROUP.properties.map(async (p) => [
        p,
        outputs[p] === undefined ? "no output" : await value(outputs[p]),
      ]),
    );
    expect(read).toEqual(GROUP.properties.map((p) => [p, fromEngine(p)]));
    expect(GROUP.properties).toEqual(expect.arrayContaining(["uid", "name", "createTime", "verified"]));
  });

  it("Group registers pulumi-nodejs:dynamic/iam:Group with its inputs and exposes outputs", async () => {
    const group = new platform.iam.Group("eng", {
      name: "eng",
      description: "d",
      parentUid: "0123456789abcdef0123456789abcdef01234567",
    });
    await value(group.urn); // registered
    const reg = registered.find((r) => r.name === "eng")!;
    expect(reg.type).toBe("pulumi-nodejs:dynamic/iam:Group");
    expect(reg.inputs).toMatchObject({
      name: "eng",
      description: "d",
      parentUid: "0123456789abcdef0123456789abcdef01234567",
    });
    expect(typeof reg.inputs.__provider).toBe("string");
  });

  it.each([
    [
      "Identity",
      () =>
        new platform.iam.Identity("id", {
          parentUid: "0123456789abcdef0123456789abcdef01234567",
          name: "ci",
          claimMatch: { issuer: "i", subject: "s" },
        }),
    ],
    [
      "Role",
      () =>
        new platform.iam.Role("role", {
          parentUid: "0123456789abcdef0123456789abcdef01234567",
          name: "r",
          capabilities: ["CAP_REPO_LIST"],
        }),
    ],
    [
      "RoleBinding",
      () =>
        new platform.iam.RoleBinding("rb", {
          groupUid: "0123456789abcdef0123456789abcdef01234567",
          identityUid: "0123456789abcdef0123456789abcdef01234567/aaaaaaaaaaaaaaaa",
          roleUid: "b".repeat(40),
        }),
    ],
    ["IdentityProvider", () => new platform.iam.IdentityProvider("idp", IDP_ARGS)],
    [
      "GroupInvite",
      () =>
        new platform.iam.GroupInvite("invite", {
          groupUid: "0123456789abcdef0123456789abcdef01234567",
          roleUid: "b".repeat(40),
          ttl: "72h",
        }),
    ],
    [
      "AccountAssociation",
      () =>
        new platform.iam.AccountAssociation("assoc", {
          groupUid: "0123456789abcdef0123456789abcdef01234567",
          name: "accounts",
          amazon: { account: "123456789012" },
        }),
    ],
  ])("%s registers the iam type token and wires uid", async (type, make) => {
    const resource = make() as pulumi.CustomResource & { uid: pulumi.Output<string> };
    expect(await value(resource.uid)).toMatch(/^0123456789abcdef0123456789abcdef01234567\//);
    expect(registered.at(-1)!.type).toBe(`pulumi-nodejs:dynamic/iam:${type}`);
  });

  it("IdentityProvider's clientSecret is secret even when passed as a plain string; other outputs are not", async () => {
    const idp = new platform.iam.IdentityProvider("idp-secret", IDP_ARGS);
    expect(await isSecret(idp.clientSecret)).toBe(true);
    expect(await value(idp.clientSecret)).toBe("plain-string-secret");
    expect(await isSecret(idp.clientId)).toBe(false);
    expect(await isSecret(idp.issuer)).toBe(false);
  });

  it("GroupInvite and IdentityProvider ask the engine to keep code and clientSecret secret; AccountAssociation.get reads by group uid", async () => {
    const invite = new platform.iam.GroupInvite("invite-secret", {
      groupUid: "0123456789abcdef0123456789abcdef01234567",
      roleUid: "b".repeat(40),
      ttl: "72h",
    });
    await value(invite.uid);
    // The engine (not the mock monitor) applies additionalSecretOutputs: check what the class asks it for.
    expect(secretOutputsRequested.get("invite-secret")).toEqual(["code"]);
    expect(secretOutputsRequested.get("idp-secret")).toEqual(["clientSecret"]);
    const assoc = platform.iam.AccountAssociation.get(
      "existing-assoc",
      "0123456789abcdef0123456789abcdef01234567",
    );
    expect(await value(assoc.name)).toBe("read-from-service");
    expect(registered.find((r) => r.name === "existing-assoc")!.id).toBe(
      "0123456789abcdef0123456789abcdef01234567",
    );
  });

  it("data sources getTags and getIdentityProviders are exported with their Output forms", () => {
    expect(typeof platform.registry.getTags).toBe("function");
    expect(typeof platform.registry.getTagsOutput).toBe("function");
    expect(typeof platform.iam.getIdentityProviders).toBe("function");
    expect(typeof platform.iam.getIdentityProvidersOutput).toBe("function");
  });

  it("static get() reads by id and exposes the read state", async () => {
    const group = platform.iam.Group.get(
      "existing",
      "0123456789abcdef0123456789abcdef01234567/bbbbbbbbbbbbbbbb",
      undefined,
      {
        profile: "orgb",
      },
    );
    expect(await value(group.name)).toBe("read-from-service");
    const reg = registered.find((r) => r.name === "existing")!;
    expect(reg.id).toBe("0123456789abcdef0123456789abcdef01234567/bbbbbbbbbbbbbbbb");
    expect(reg.inputs.profile).toBe("orgb");
  });

  it("a secret input stays secret on its output; the registered inputs hold no credential", async () => {
    const identity = new platform.iam.Identity("sec", {
      parentUid: "0123456789abcdef0123456789abcdef01234567",
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
