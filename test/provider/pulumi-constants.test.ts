/**
 * Values copied from @pulumi/pulumi because the program side and the plugin bundle must not load its runtime for
 * them (the plugin replaces @pulumi/pulumi with a stub): pinned here to the installed SDK, so an upgrade that
 * changes one fails this test instead of silently mis-reading the engine's values.
 */
import * as rpc from "@pulumi/pulumi/runtime/rpc";
import { UNKNOWN } from "../../provider/core/check";
import { RESOURCE_REFERENCE_SIG, SECRET_SIG, SIG_KEY } from "../../plugin/values";

describe("constants copied from @pulumi/pulumi", () => {
  it.each([
    ["the unknown-value sentinel", UNKNOWN, rpc.unknownValue],
    ["the special signature key", SIG_KEY, rpc.specialSigKey],
    ["the secret signature", SECRET_SIG, rpc.specialSecretSig],
    ["the resource reference signature", RESOURCE_REFERENCE_SIG, rpc.specialResourceSig],
  ])("%s equals upstream's", (_what, ours, upstream) => {
    expect(ours).toBe(upstream);
  });
});
