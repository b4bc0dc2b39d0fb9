/**
 * The access lines through the native plugin, driven as the engine drives `up` (check, then create, each resource
 * in turn, in one plugin process): the binding of a folder, an identity and a role the same run created is named,
 * under the binding's URN; what a GroupAccess made counts for the changes after it; no uid where a name is known.
 */
import { captureLog } from "../../provider/core/engine-log";
import { forgetLiveFacts } from "../../provider/core/access-review";
import { resetClaims } from "../../provider/iam/access";
import { TEST_ISSUER } from "../organization";
import { PluginHarness, startPluginHarness, urnOf } from "./harness";

let h: PluginHarness;
beforeAll(async () => {
  h = await startPluginHarness();
});
afterAll(async () => {
  captureLog(undefined);
  await h.close();
});
beforeEach(() => {
  h.emulator.reset();
  forgetLiveFacts();
  resetClaims();
});

/** The access lines logged while `work` runs, each with the URN it was logged under. */
async function accessLines(work: () => Promise<unknown>): Promise<{ line: string; urn?: string }[]> {
  const logged: { line: string; urn?: string }[] = [];
  captureLog((_severity, message, urn) => {
    for (const line of message.split("\n"))
      if (line.startsWith("access: ")) logged.push({ line, ...(urn === undefined ? {} : { urn }) });
  });
  try {
    await work();
  } finally {
    captureLog(undefined);
  }
  return logged;
}

/** up's step for one new resource: its check, then its create. */
async function made(type: string, news: Record<string, unknown>): Promise<string> {
  const checked = await h.check(type, news);
  expect(checked.failures).toEqual([]);
  return (await h.create(type, checked.inputs.props)).id;
}

it("up names the binding of a role, an identity and a folder created earlier in the same run", async () => {
  const org = h.emulator.orgUid;
  const folder = await made("platform:iam:Group", { parentUid: org, name: "platform" });
  const robot = await made("platform:iam:Identity", {
    parentUid: org,
    name: "ci-robot",
    claimMatch: { issuer: TEST_ISSUER, subject: "ci" },
  });
  const deployer = await made("platform:iam:Role", {
    parentUid: org,
    name: "deployer",
    capabilities: ["CAP_REPO_LIST", "CAP_TAG_LIST"],
  });
  const lines = await accessLines(() =>
    h.check("platform:iam:RoleBinding", { groupUid: folder, identityUid: robot, roleUid: deployer }),
  );
  expect(lines).toEqual([
    {
      line: 'access: workload identity ci-robot becomes role deployer (2 capabilities: CAP_REPO_LIST, CAP_TAG_LIST) on folder platform (platform:iam:RoleBinding "test")',
      urn: urnOf("platform:iam:RoleBinding"),
    },
  ]);
});

it("a change after a GroupAccess of the same run sees the bindings it made", async () => {
  const org = h.emulator.orgUid;
  const c = h.emulator.client;
  const reader = await c.roles.create(org, { name: "reader", capabilities: ["CAP_REPO_LIST"] });
  const robot = await c.identities.create(org, {
    name: "joiner",
    claimMatch: { issuer: TEST_ISSUER, subject: "joiner" },
  });
  const folder = await made("platform:iam:Group", { parentUid: org, name: "governed" });
  await made("platform:iam:GroupAccess", {
    groupUid: folder,
    bindings: [{ identityUid: robot.uid, roleUid: reader.uid }],
  });
  const lines = await accessLines(() =>
    h.diff(
      "platform:iam:Role",
      reader.uid,
      { parentUid: org, name: "reader", capabilities: ["CAP_REPO_LIST"], uid: reader.uid },
      { parentUid: org, name: "reader", capabilities: ["CAP_REPO_LIST", "CAP_TAG_LIST"] },
    ),
  );
  expect(lines.map((l) => l.line)).toEqual([
    'access: workload identity joiner gains CAP_TAG_LIST on folder governed, through role reader (2 capabilities: CAP_REPO_LIST, CAP_TAG_LIST) (platform:iam:Role "test")',
  ]);
});
