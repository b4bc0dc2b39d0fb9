/** The plugin's wire values: secrets unwrapped and remembered by top-level property, references to ids, and back. */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import {
  RESOURCE_REFERENCE_SIG,
  SECRET_SIG,
  SIG_KEY,
  fromStruct,
  isEmptyStruct,
  toStruct,
} from "../../plugin/values";

const wire = (value: Record<string, unknown>) =>
  Struct.fromJavaScript(value as Parameters<typeof Struct.fromJavaScript>[0]);

describe("plugin values", () => {
  it("unwraps secrets at any depth and names the top-level property that held one", () => {
    const { props, secrets } = fromStruct(
      wire({
        clientSecret: { [SIG_KEY]: SECRET_SIG, value: "s" },
        claimMatch: { issuer: "https://i", subject: { [SIG_KEY]: SECRET_SIG, value: "sub" } },
        name: "plain",
      }),
    );
    expect(props).toEqual({
      clientSecret: "s",
      claimMatch: { issuer: "https://i", subject: "sub" },
      name: "plain",
    });
    expect([...secrets].sort()).toEqual(["claimMatch", "clientSecret"]);
  });

  it("a resource reference stands for the resource's id", () => {
    const ref = {
      [SIG_KEY]: RESOURCE_REFERENCE_SIG,
      urn: "urn:pulumi:s::p::platform:iam:Group::g",
      id: "org/abc",
    };
    expect(fromStruct(wire({ parentUid: ref })).props).toEqual({ parentUid: "org/abc" });
  });

  it("wraps the named properties as secrets, drops undefined members, and knows an empty struct", () => {
    const struct = toStruct({ code: "c", uid: "u", gone: undefined, nested: { a: undefined, b: 1 } }, [
      "code",
      "absent",
    ]);
    expect(struct.toJavaScript()).toEqual({
      code: { [SIG_KEY]: SECRET_SIG, value: "c" },
      uid: "u",
      nested: { b: 1 },
    });
    expect(isEmptyStruct(undefined)).toBe(true);
    expect(isEmptyStruct(new Struct())).toBe(true);
    expect(isEmptyStruct(struct)).toBe(false);
  });
});
