/**
 * A GroupAccess create that stops part-way through the native plugin: the engine gets the state to record as a
 * pulumirpc.ErrorResourceInitFailed detail (id, the bindings that exist, the reason), so it records the resource
 * with its initErrors and the next run updates it rather than losing what was created.
 */
import * as grpc from "@grpc/grpc-js";
import * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { BUILTIN_ROLES } from "../../emulator/access";
import { keyOf } from "../../provider/iam/access";
import { plain, PluginHarness, struct, urnOf, usePluginHarness } from "./harness";

const GROUP_ACCESS = "platform:iam:GroupAccess";
const VIEWER = BUILTIN_ROLES.find((r) => r.name === "viewer")!.uid;

let h: PluginHarness;
usePluginHarness((started) => (h = started));

it("a create stopped part-way answers ErrorResourceInitFailed with the bindings that exist", async () => {
  const c = h.emulator.client;
  const folder = (await c.groups.create(h.emulator.orgUid, { name: "folder" })).uid;
  const members: string[] = [];
  for (let i = 0; i < 60; i++)
    members.push(
      (
        await c.identities.create(h.emulator.orgUid, {
          name: `m${i}`,
          claimMatch: { issuer: "https://issuer.example", subject: `m${i}` },
        })
      ).uid,
    );
  const checked = await h.check(GROUP_ACCESS, {
    groupUid: folder,
    bindings: members.map((identityUid) => ({ identityUid, roleUid: VIEWER })),
  });
  expect(checked.failures).toEqual([]);
  // One of the three batches (25, 25, 10) is refused outright (not transient): the other two are created.
  h.emulator.faults.add({ path: "batchCreate$", action: "status", status: 403, times: 1 });
  const request = new providerPb.CreateRequest();
  request.setUrn(urnOf(GROUP_ACCESS));
  request.setType(GROUP_ACCESS);
  request.setProperties(struct(checked.inputs.props));
  const error = await new Promise<grpc.ServiceError>((resolve, reject) =>
    h.client.create(request, (err) => (err ? resolve(err) : reject(new Error("create succeeded")))),
  );
  h.emulator.faults.clear();
  const [bin] = error.metadata.get("grpc-status-details-bin") as Buffer[];
  const status = Status.deserializeBinary(new Uint8Array(bin!));
  const detail = status.getDetailsList()[0]!;
  expect(detail.getTypeName()).toBe("pulumirpc.ErrorResourceInitFailed");
  const initFailed = providerPb.ErrorResourceInitFailed.deserializeBinary(detail.getValue_asU8());
  expect(initFailed.getId()).toBe(folder);
  expect(initFailed.getReasonsList().join(" ")).toMatch(/403/);
  const recorded = plain(initFailed.getProperties()).props.bindings as {
    identityUid: string;
    roleUid: string;
  }[];
  const exists = (await c.roleBindings.list({ group: folder, pageSize: 200 }).all()).map((b) =>
    keyOf({ groupUid: folder, identityUid: b.identity!.uid, roleUid: b.role!.uid }),
  );
  expect([35, 50]).toContain(exists.length);
  expect(recorded.map((b) => keyOf({ groupUid: folder, ...b })).sort()).toEqual(exists.sort());
});
