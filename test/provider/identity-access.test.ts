/** platform.iam.IdentityAccess's provider against the in-process emulator. */
import identityAccess = require("../../provider/iam/identity-access.provider");
import groupAccess = require("../../provider/iam/group-access.provider");
import { resetClaims } from "../../provider/iam/access";
import { useHarness } from "./harness";
import { builtinRole, organizationOf } from "../organization";

const h = useHarness(resetClaims);

const VIEWER = builtinRole("viewer");
const EDITOR = builtinRole("editor");

async function fixture() {
  const org = organizationOf(h.emulator);
  return { c: org.client, folder: await org.folder("folder"), ci: await org.identity("ci") };
}

const writes = () => h.requestsSinceMark().filter((r) => r.method === "POST" || r.method === "DELETE");

describe("IdentityAccess provider", () => {
  it("holds every role of one identity: drift on any group is read, and update removes exactly it", async () => {
    const { c, folder, ci } = await fixture();
    const declared = { identityUid: ci.uid, bindings: [{ groupUid: folder.uid, roleUid: VIEWER }] };
    const { id, outs } = await identityAccess.create(declared);
    expect(id).toBe(ci.uid);
    const extra = await c.roleBindings.create(h.emulator.orgUid, { identityUid: ci.uid, roleUid: EDITOR });
    const read = await identityAccess.read!(id, outs);
    expect(read.inputs!.bindings).toEqual(
      expect.arrayContaining([
        { groupUid: folder.uid, roleUid: VIEWER },
        { groupUid: h.emulator.orgUid, roleUid: EDITOR },
      ]),
    );
    const checked = await identityAccess.check!(read.inputs!, declared);
    expect(checked.failures).toEqual([]);
    h.mark();
    await identityAccess.update!(id, read.props!, checked.inputs);
    expect(writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      `DELETE /iam/v2beta1/roleBindings/${extra.uid}`,
    ]);
  });

  it("imports an identity's bindings by its uid", async () => {
    const { c, folder, ci } = await fixture();
    await c.roleBindings.create(folder.uid, { identityUid: ci.uid, roleUid: VIEWER });
    const read = await identityAccess.read!(ci.uid, undefined);
    expect(read.inputs).toEqual({
      identityUid: ci.uid,
      bindings: [{ groupUid: folder.uid, roleUid: VIEWER }],
      onDelete: "remove",
      allowRemovingOwnAccess: false,
    });
  });

  it("refuses to remove the provider's own bindings unless allowed", async () => {
    await fixture();
    const own = { identityUid: h.emulator.userUid, bindings: [] };
    const refused = await identityAccess.check!({}, own);
    expect(refused.failures!.map((f) => f.reason)).toEqual([
      expect.stringContaining("would remove built-in role owner of user demo-user on organization demo-org"),
    ]);
    resetClaims();
    expect((await identityAccess.check!({}, { ...own, allowRemovingOwnAccess: true })).failures).toEqual([]);
  });

  it("may stand beside a GroupAccess only when both declare the same bindings where they meet", async () => {
    const { folder, ci } = await fixture();
    const inFolder = { groupUid: folder.uid, roleUid: VIEWER };
    await groupAccess.check!(
      {},
      { groupUid: folder.uid, bindings: [{ identityUid: ci.uid, roleUid: VIEWER }] },
    );
    expect((await identityAccess.check!({}, { identityUid: ci.uid, bindings: [inFolder] })).failures).toEqual(
      [],
    );
    resetClaims();
    await groupAccess.check!({}, { groupUid: folder.uid, bindings: [] });
    const disagree = await identityAccess.check!({}, { identityUid: ci.uid, bindings: [inFolder] });
    expect(disagree.failures!.map((f) => f.reason)).toEqual([
      expect.stringMatching(
        /^IdentityAccess of identity .* conflicts with GroupAccess of group .*declare different bindings/,
      ),
    ]);
  });
});
