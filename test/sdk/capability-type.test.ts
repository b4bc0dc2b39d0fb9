/**
 * Capabilities are a type (sdk/schemas/capabilities.ts), derived from the OpenAPI enum: a misspelt capability is a
 * type error. The `@ts-expect-error` lines below are what `npm run typecheck` (which covers test/) proves: were
 * `Capability` a `string` again, each would be an unused directive and the type check would fail. At run time,
 * `capabilityFor` answers only capabilities the API has, and every `"CAP_…"` literal in the hand-written sources is a
 * capability or a collection's stem.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { COLLECTION_ACCESS, capabilityFor, type Collection, type Verb } from "../../sdk/access-model";
import {
  CAPABILITIES,
  isCapability,
  type Capability,
  type CapabilityStem,
} from "../../sdk/schemas/capabilities";
import { CapabilityValues } from "../../sdk/schemas/openapi.generated";

const root = path.resolve(__dirname, "..", "..");

describe("the Capability type", () => {
  it("is the OpenAPI enum without UNKNOWN", () => {
    expect(CAPABILITIES).toEqual(CapabilityValues.filter((name) => name !== "UNKNOWN"));
  });

  it("refuses a misspelt capability or stem at type-check time", () => {
    // @ts-expect-error CAP_IAM_GROUP_LIST is misspelt (CAP_IAM_GROUPS_LIST)
    const misspelt: Capability = "CAP_IAM_GROUP_LIST";
    // @ts-expect-error the identities' stem is CAP_IAM_IDENTITY
    const stem: CapabilityStem = "CAP_IAM_IDENTITIES";
    // @ts-expect-error UNKNOWN is the enum's zero value, no capability
    const unknown: Capability = "UNKNOWN";
    const right: Capability = "CAP_IAM_GROUPS_LIST";
    expect([misspelt, stem, unknown, right].map(isCapability)).toEqual([false, false, false, true]);
  });

  it("capabilityFor answers a capability the API has for every operation but an invite's UPDATE", () => {
    const verbs: Verb[] = ["CREATE", "UPDATE", "LIST", "DELETE"];
    const operations = (Object.keys(COLLECTION_ACCESS) as Collection[]).flatMap((collection) =>
      verbs.map((verb) => ({ collection, verb, capability: capabilityFor(collection, verb) })),
    );
    for (const { collection, verb, capability } of operations)
      expect(capability).toBe(`${COLLECTION_ACCESS[collection].capability}_${verb}`);
    expect(
      operations.filter((o) => !isCapability(o.capability)).map((o) => `${o.verb} ${o.collection}`),
    ).toEqual(["UPDATE groupInvites"]);
  });
});

describe("capability names in the hand-written sources", () => {
  const FLOORS = ["sdk", "provider", "emulator", "commands", "policy", "plugin", "bench"];
  const sources = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(full);
      return entry.name.endsWith(".ts") && !entry.name.includes("generated") ? [full] : [];
    });

  /** Named to be left out: the built-in roles' generator skips the one IAM verb the API lacks. */
  const LEFT_OUT = new Set(["CAP_IAM_GROUP_INVITES_UPDATE"]);

  it("are each a capability the API knows, or a collection's stem", () => {
    const stems = new Set(CAPABILITIES.map((c) => c.replace(/_LIST$/, "")));
    const unknown: string[] = [];
    for (const file of FLOORS.flatMap((floor) => sources(path.join(root, floor)))) {
      for (const [, name] of fs.readFileSync(file, "utf8").matchAll(/["'`](CAP_[A-Z0-9_]+)["'`]/g))
        if (!isCapability(name!) && !stems.has(name!) && !LEFT_OUT.has(name!))
          unknown.push(`${path.relative(root, file)}: ${name}`);
    }
    expect(unknown).toEqual([]);
  });
});
