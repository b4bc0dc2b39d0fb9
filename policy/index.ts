/**
 * The pulumi-platform policy pack: CrossGuard rules that stop risky trust in workload identities and roles before
 * it exists. Run it with `pulumi preview --policy-pack <this directory>` (../docs/policy-pack.md). Constructing the
 * PolicyPack serves it to the engine, so only the engine loads this module; tests load ./rules.
 */
import { PolicyPack } from "@pulumi/policy";
import { POLICIES } from "./rules";

new PolicyPack("pulumi-platform", {
  description:
    "Stops risky trust in pulumi-platform workload identities, roles, invites and identity providers.",
  policies: POLICIES,
});
