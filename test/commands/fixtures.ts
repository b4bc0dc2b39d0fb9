/**
 * What the importer tests import: an object of every kind made through the API, and a Terraform state (format
 * version 4) of the same objects as the chainguard-dev/chainguard Terraform provider keeps them (attributes as its
 * resources' schemas name them: internal/provider/resource_*.go), plus what it cannot map. Shared by
 * test/commands/importer.test.ts and test/e2e/adopt.e2e.test.ts.
 */
import type { PlatformClient } from "../../sdk";
import type { Io } from "../../commands/import/cli";

/**
 * An object of every kind under `org`: a folder holding an identity, a binding, an invite and an association; a
 * custom role and an identity provider (with `clientSecret`) in the organization. Also the plugin's e2e tests'.
 */
export async function everyKind(client: PlatformClient, org: string, clientSecret = "hand-made-secret") {
  const viewer = (await client.roles.list({ name: "viewer", pageSize: 200 })).items.find(
    (r) => r.name === "viewer",
  )!;
  const group = await client.groups.create(org, { name: "legacy", description: "Made by hand" });
  const identity = await client.identities.create(group.uid, {
    name: "legacy-ci",
    claimMatch: { issuer: "https://issuer.example.com", subject: "legacy" },
  });
  const role = await client.roles.create(org, { name: "legacy-role", capabilities: ["CAP_REPO_LIST"] });
  const binding = await client.roleBindings.create(group.uid, {
    identityUid: identity.uid,
    roleUid: role.uid,
  });
  const idp = await client.identityProviders.create(org, {
    name: "legacy-sso",
    defaultRole: viewer.uid,
    oidc: { issuer: "https://login.example.com", clientId: "legacy", clientSecret },
  });
  const invite = await client.groupInvites.create(group.uid, { roleUid: viewer.uid, ttl: "86400s" });
  const association = await client.accountAssociations.create(group.uid, {
    name: "legacy-aws",
    amazon: { account: "210987654321" },
  });
  return { viewer, group, identity, role, binding, idp, invite, association };
}

export type EveryKind = Awaited<ReturnType<typeof everyKind>>;

/** The Terraform addresses of `everyKind`'s objects in the state `terraformState` writes, in its order. */
export const EVERY_KIND_ADDRESSES = [
  "chainguard_group.legacy",
  "chainguard_identity.ci",
  "chainguard_role.role",
  "chainguard_rolebinding.binding",
  "module.sso.chainguard_identity_provider.sso",
  "chainguard_group_invite.invite",
  "chainguard_account_associations.aws",
];

/** A version-4 state as Terraform writes it, with the attributes the chainguard provider's resources keep. */
export function terraformState(o: EveryKind, org: string, extra: unknown[] = []) {
  const provider = 'provider["registry.terraform.io/chainguard-dev/chainguard"]';
  const managed = (type: string, name: string, attributes: Record<string, unknown>, module?: string) => ({
    ...(module ? { module } : {}),
    mode: "managed",
    type,
    name,
    provider,
    instances: [{ schema_version: 0, attributes, sensitive_attributes: [] }],
  });
  return {
    version: 4,
    terraform_version: "1.9.8",
    serial: 12,
    lineage: "3f1c2b9e-0000-4000-8000-000000000000",
    outputs: {},
    resources: [
      managed("chainguard_group", "legacy", {
        id: o.group.uid,
        parent_id: org,
        name: "legacy",
        description: "Made by hand",
        verified: null,
        verified_protection: null,
        kind: "",
        resource_limits: null,
      }),
      managed("chainguard_identity", "ci", {
        id: o.identity.uid,
        parent_id: o.group.uid,
        name: "legacy-ci",
        description: "",
        claim_match: { issuer: "https://issuer.example.com", subject: "legacy" },
        aws_identity: null,
        static: null,
        service_principal: null,
      }),
      managed("chainguard_role", "role", {
        id: o.role.uid,
        parent_id: org,
        name: "legacy-role",
        description: "",
        capabilities: ["CAP_REPO_LIST"],
      }),
      managed("chainguard_rolebinding", "binding", {
        id: o.binding.uid,
        group: o.group.uid,
        identity: o.identity.uid,
        role: o.role.uid,
      }),
      managed(
        "chainguard_identity_provider",
        "sso",
        {
          id: o.idp.uid,
          parent_id: org,
          name: "legacy-sso",
          description: "",
          default_role: o.viewer.uid,
          oidc: {
            issuer: "https://login.example.com",
            client_id: "legacy",
            client_secret: "hand-made-secret",
            additional_scopes: null,
          },
        },
        "module.sso",
      ),
      {
        ...managed("chainguard_group_invite", "invite", {
          id: o.invite.uid,
          group: o.group.uid,
          role: o.viewer.uid,
          expiration: o.invite.expirationTime,
          email: null,
          code: "invite-code-from-terraform",
        }),
      },
      managed("chainguard_account_associations", "aws", {
        id: o.association.uid,
        group: o.group.uid,
        name: "legacy-aws",
        description: "",
        amazon: { account: "210987654321" },
      }),
      {
        mode: "data",
        type: "chainguard_role",
        name: "viewer",
        provider,
        instances: [{ schema_version: 0, attributes: { id: "x", name: "viewer", items: [] } }],
      },
      managed("chainguard_image_repo", "nginx", { id: `${org}/0123456789abcdef`, name: "nginx" }),
      {
        mode: "managed",
        type: "aws_s3_bucket",
        name: "logs",
        provider: 'provider["registry.terraform.io/hashicorp/aws"]',
        instances: [{ schema_version: 0, attributes: { id: "logs" } }],
      },
      ...extra,
    ],
    check_results: null,
  };
}

/** A resource of this package in an exported state. */
export interface StateEntry {
  /** The dynamic provider's type token, or the native plugin's. */
  front: "dynamic" | "native";
  /** The schema's token, e.g. platform:iam:Group. */
  token: string;
  uid: string;
  /** The resource's name in the program. */
  name: string;
  /** Read with `get`, not managed. */
  external?: boolean;
  /** Left pending deletion (a replace whose delete failed). */
  pendingDelete?: boolean;
  /** Recorded inputs and outputs beyond the uid. */
  props?: Record<string, unknown>;
}

/**
 * A `pulumi stack export` of a stack named `dev` of project `project`, as the engine 3.248 writes it (version 3): the
 * stack resource, the default provider, and each entry with its urn, type, id, inputs and outputs. A dynamic
 * resource's type is `pulumi-nodejs:dynamic/<module>:<Type>` and its inputs and outputs carry the saved provider.
 */
export function stateExport(project: string, entries: readonly StateEntry[]) {
  const stackUrn = `urn:pulumi:dev::${project}::pulumi:pulumi:Stack::${project}-dev`;
  const providerUrn = `urn:pulumi:dev::${project}::pulumi:providers:platform::default_0_2_0`;
  const resources = entries.map((e) => {
    const [, module, type] = e.token.split(":") as [string, string, string];
    const typeToken = e.front === "dynamic" ? `pulumi-nodejs:dynamic/${module}:${type}` : e.token;
    const saved =
      e.front === "dynamic"
        ? { __provider: `exports.handler = require("pulumi-platform/dist/provider/${module}/x.provider")` }
        : {};
    return {
      urn: `urn:pulumi:dev::${project}::${typeToken}::${e.name}`,
      custom: true,
      id: e.uid,
      type: typeToken,
      inputs: { ...saved, ...(e.props ?? {}) },
      outputs: { ...saved, uid: e.uid, ...(e.props ?? {}) },
      parent: stackUrn,
      ...(e.front === "native" ? { provider: `${providerUrn}::04da6b54-80e4-46f7-96ec-b56ff0331ba9` } : {}),
      ...(e.external ? { external: true } : {}),
      ...(e.pendingDelete ? { delete: true } : {}),
    };
  });
  return {
    version: 3,
    deployment: {
      manifest: { time: "2026-11-25T12:00:00Z", magic: "", version: "v3.248.0" },
      secrets_providers: { type: "passphrase", state: { salt: "v1:AAAA:v1:BBBB:CCCC" } },
      resources: [
        { urn: stackUrn, custom: false, type: "pulumi:pulumi:Stack" },
        {
          urn: providerUrn,
          custom: true,
          id: "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
          type: "pulumi:providers:platform",
        },
        ...resources,
      ],
    },
  };
}

/** An `Io` for the CLIs' `main` that keeps what they print: stdout whole, stderr line by line. */
export function capture(env: Record<string, string | undefined>): Io & { out: string; err: string[] } {
  const io = {
    out: "",
    err: [] as string[],
    env,
    stdout: (text: string) => void (io.out += text),
    stderr: (line: string) => void io.err.push(line),
  };
  return io;
}
