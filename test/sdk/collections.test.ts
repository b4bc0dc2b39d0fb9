/**
 * The one table of collections (sdk/collections) walked row by row: each consumer that cannot simply derive from it
 * has the row, and each that derives says what the row says. A row added without the kind's own behaviour fails
 * here, naming the consumer that misses it:
 *   - what we did not write: the OpenAPI has the path (list and get), the published `.proto` files the message,
 *     the OpenAPI's Capability enum the stem's capabilities;
 *   - the SDK's client has a resource at the path; the emulator's route table serves list and get there, over gRPC
 *     too (a served RPC bound to the path);
 *   - the access model, the store, propagation (client and emulator) and the words answer from the row.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { COLLECTIONS, COLLECTION_NAMES, type CollectionName } from "../../sdk/collections";
import { COLLECTION_ACCESS, capabilityFor } from "../../sdk/access-model";
import { PlatformClient } from "../../sdk/client";
import { propagates } from "../../sdk/propagation";
import { CapabilityValues } from "../../sdk/schemas/openapi.generated";
import { NAMED_COLLECTIONS, nounOf, pluralOf } from "../../sdk/words";
import { KINDS } from "../../emulator/model";
import { routeTable } from "../../emulator/routes/table";
import type { Control } from "../../emulator/routes/control";
import { messageSchema, servedMethods } from "../../emulator/grpc/protos";
import { Access } from "../../emulator/access";
import { IMPORT_KINDS, LISTED_KINDS } from "../../commands/kinds";

const OPENAPI = JSON.parse(readFileSync(path.join(__dirname, "../../spec/openapi-v2beta1.json"), "utf8")) as {
  paths: Record<string, unknown>;
};

const rows = COLLECTION_NAMES.map((name) => [name, COLLECTIONS[name]] as const);

describe.each(rows)("%s", (name: CollectionName, row) => {
  it("is in the OpenAPI, the protos and the Capability enum (what we did not write)", () => {
    expect(Object.keys(OPENAPI.paths)).toEqual(expect.arrayContaining([row.path, `${row.path}/{uid}`]));
    expect(() => messageSchema(row.message)).not.toThrow();
    expect(CapabilityValues).toContain(`${row.capability}_LIST`);
  });

  it("has a resource in the SDK's client at its path", () => {
    const client = new PlatformClient({ apiUrl: "http://127.0.0.1:1", token: "t" }) as unknown as Record<
      string,
      { collection?: { name: string; path: string } } | undefined
    >;
    expect(client[name]?.collection).toEqual(expect.objectContaining({ name, path: row.path }));
  });

  it("is served by the emulator over REST and gRPC", () => {
    const lines = new Set(routeTable({} as Control).map((r) => `${r.method} ${r.url}`));
    expect(lines).toContain(`GET ${row.path}`);
    expect(lines).toContain(`GET ${row.path}/*`);
    const bound = servedMethods().filter((m) => m.http.some((h) => h.pathTemplate.startsWith(`${row.path}`)));
    expect(bound.map((m) => m.responseType)).toContain(row.message);
  });

  it("is what the access model, the store, propagation and the words answer from", () => {
    expect(KINDS).toContain(name);
    expect(capabilityFor(name, "LIST")).toBe(`${row.capability}_LIST`);
    const uid = "o/p/q/r";
    const at = { self: uid, parent: "o/p/q", grandparent: "o/p" }[row.position];
    expect(COLLECTION_ACCESS[name].position(uid)).toBe(at);
    expect(propagates(`${row.path}/o`)).toBe(row.propagates);
    const access = new Access({} as never, { now: () => new Date(0) } as never);
    access.propagationDelayMs = 1000;
    access.created(name, "o/new");
    expect(access.pending("o/new")).toBe(row.propagates);
    expect(pluralOf(row.noun.under)).toMatch(/s$/);
    const named = Object.entries(NAMED_COLLECTIONS).find(([, c]) => c === name)?.[0];
    if (named !== undefined) {
      expect(nounOf(named as keyof typeof NAMED_COLLECTIONS, "o/p")).toBe(row.noun.under);
      expect(nounOf(named as keyof typeof NAMED_COLLECTIONS, "o")).toBe(
        "root" in row.noun ? row.noun.root : undefined,
      );
    }
  });
});

it("names every collection the import tool lists", () => {
  for (const kind of LISTED_KINDS) expect(COLLECTION_NAMES).toContain(IMPORT_KINDS[kind].collection);
});
