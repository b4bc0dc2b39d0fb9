/**
 * The default wire mapping (provider/core/wire.ts) on a small declaration: what create and update send, what the
 * read-back gives, and, at compile time, that a declared input the API object has no member for must be mapped.
 */
import { z } from "zod";
import { declareResource, input, output } from "../../provider/core/declaration";
import { inputsFromObject, wireBody, type DeclaredInputs, type WireMapping } from "../../provider/core/wire";

const THING = declareResource({
  token: "platform:test:Thing",
  stem: "thing",
  summary: "A test resource.",
  importId: "its uid",
  inputs: {
    parentUid: input(z.string(), { doc: "Parent.", replaces: true, inPath: true }),
    name: input(z.string(), { doc: "Name." }),
    description: input(z.string().optional(), { doc: "Description.", default: "" }),
    tags: input(z.array(z.string()).optional(), { doc: "Tags.", default: [] }),
    secret: input(z.string().optional(), { doc: "Nested on the wire." }),
  },
  outputs: { uid: output(z.string(), "Uid.") },
});
type ThingInputs = z.infer<typeof THING.inputSchema>;
interface ThingObject {
  uid: string;
  name: string;
  description?: string;
  tags?: string[];
  nested?: { secret?: string };
}

const wire: WireMapping<ThingInputs, ThingObject> = {
  read: { parentUid: (o) => o.uid.split("/")[0], secret: (o) => o.nested?.secret },
  send: { secret: (i) => ({ nested: { secret: i.secret } }) },
};

describe("the default wire mapping", () => {
  const inputs: ThingInputs = { parentUid: "p", name: "n", secret: "s" };

  it("create sends every declared input but the path's, as given, an override's members in its place", () => {
    expect(wireBody(THING, wire, inputs)).toEqual({ name: "n", nested: { secret: "s" } });
  });

  it("update sends exactly the masked fields, an unset one as its declared default", () => {
    expect(wireBody(THING, wire, inputs, ["description", "tags"])).toEqual({ description: "", tags: [] });
    expect(
      Object.keys(wireBody(THING, wire, { ...inputs, description: "d" }, ["name", "description"])),
    ).toEqual(["name", "description"]);
  });

  it("read-back gives every declared input, an unset one as its default", () => {
    const read: DeclaredInputs<ThingInputs> = inputsFromObject(THING, wire, { uid: "p/x", name: "n" });
    expect(read).toEqual({ parentUid: "p", name: "n", description: "", tags: [], secret: undefined });
  });

  it("a declared input the API object lacks must be mapped (compile time)", () => {
    // @ts-expect-error -- `secret` is not a member of ThingObject: its read-back must be given
    const missing: WireMapping<ThingInputs, ThingObject> = { read: { parentUid: () => "p" } };
    expect(missing.read).toBeDefined();
  });
});
