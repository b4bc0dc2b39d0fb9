/**
 * A Terraform state (format version 4) of the platform's Terraform provider, mapped to this provider's types and
 * ids, offline. The attributes read are those the Terraform provider's resources keep in state: `id` everywhere,
 * `name`, `parent_id` (groups, identities, roles, identity providers), `group` (bindings, invites, account
 * associations), `identity` and `role` (bindings), `service_principal` (identities). Every resource of the state
 * is either mapped or listed with the reason it is not.
 */
import {
  buildDocument,
  stringLeaves,
  unrecoverableNotes,
  type Found,
  type ImportDocument,
  type Skipped,
} from "./document";
import { parentOf } from "../../sdk/uidp";
import { IMPORT_KINDS, kindOfTerraformType, type ListedKind } from "../kinds";
import { Refusal } from "../command";
import { countKinds } from "./walk";

/** The Terraform registry address the platform's provider is published under. */
const PROVIDER_SOURCE = /(^|\/)chainguard-dev\/chainguard"?\]?$/;

interface StateInstance {
  index_key?: string | number;
  attributes?: Record<string, unknown>;
}

interface StateResource {
  module?: string;
  mode?: string;
  type?: string;
  name?: string;
  provider?: string;
  instances?: StateInstance[];
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The resource instance's address, as `terraform state rm` takes it. */
function addressOf(resource: StateResource, instance: StateInstance): string {
  const prefix = resource.module ? `${resource.module}.` : "";
  const data = resource.mode === "data" ? "data." : "";
  const key =
    instance.index_key === undefined
      ? ""
      : typeof instance.index_key === "number"
        ? `[${instance.index_key}]`
        : `[${JSON.stringify(instance.index_key)}]`;
  return `${prefix}${data}${resource.type}.${resource.name}${key}`;
}

/** The provider's name in a `provider` member, e.g. `provider["registry.terraform.io/hashicorp/aws"]` → hashicorp/aws. */
function providerOf(resource: StateResource): string {
  const match = /provider\["([^"]+)"\]/.exec(resource.provider ?? "");
  return match ? match[1]!.replace(/^registry\.terraform\.io\//, "") : (resource.provider ?? "unknown");
}

/** Parses and checks the state; throws Refusal for anything that is not a version-4 state of this provider. */
export function parseTerraformState(text: string, file: string): StateResource[] {
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    throw new Refusal(`${file} is not a Terraform state: it is not JSON`);
  }
  if (typeof state !== "object" || state === null || Array.isArray(state))
    throw new Refusal(`${file} is not a Terraform state: not a JSON object`);
  const { version, resources } = state as { version?: unknown; resources?: unknown };
  if (typeof version !== "number" || !("terraform_version" in state))
    throw new Refusal(`${file} is not a Terraform state: it has no "version" and "terraform_version"`);
  if (version !== 4)
    throw new Refusal(`${file} is a Terraform state of format version ${version}; only version 4 is read`);
  if (!Array.isArray(resources))
    throw new Refusal(`${file} is not a Terraform state: "resources" is not a list`);
  const ours = (resources as StateResource[]).filter((r) => PROVIDER_SOURCE.test(providerOf(r)));
  if (ours.length === 0) {
    const others = [...new Set((resources as StateResource[]).map(providerOf))].sort();
    throw new Refusal(
      `${file} holds no resource of the chainguard-dev/chainguard provider` +
        (others.length > 0 ? ` (only of ${others.join(", ")})` : " (it holds no resources)"),
    );
  }
  return resources as StateResource[];
}

export interface TerraformResult {
  document: ImportDocument;
  counts: Record<ListedKind, number>;
  /** The addresses mapped, for `terraform state rm`. */
  addresses: string[];
}

/** Maps a version-4 state of the platform's Terraform provider to an import document. */
export function mapTerraformState(text: string, file: string): TerraformResult {
  const resources = parseTerraformState(text, file);
  const found: Found[] = [];
  const skipped: Skipped[] = [];
  const addresses: string[] = [];
  const inTerraform: { kind: ListedKind; attributes: Record<string, unknown>; address: string }[] = [];

  for (const resource of resources) {
    for (const instance of resource.instances ?? []) {
      const address = addressOf(resource, instance);
      const provider = providerOf(resource);
      if (!PROVIDER_SOURCE.test(provider)) {
        skipped.push({ subject: address, reason: `a resource of another provider (${provider})` });
        continue;
      }
      if (resource.mode === "data") {
        skipped.push({
          subject: address,
          reason: "a data source: it manages nothing, so there is nothing to import",
        });
        continue;
      }
      const kind = kindOfTerraformType(resource.type ?? "");
      if (kind === undefined) {
        skipped.push({
          subject: address,
          reason: `${resource.type} has no counterpart among this provider's resources`,
        });
        continue;
      }
      const attributes = instance.attributes ?? {};
      if (
        str(attributes["id"]) === undefined &&
        !(kind === "accountAssociation" && str(attributes["group"]))
      ) {
        skipped.push({ subject: address, reason: "it has no id in the state (was it ever created?)" });
        continue;
      }
      if (kind === "identity" && str(attributes["service_principal"]) !== undefined) {
        skipped.push({
          subject: address,
          reason: `the service principal ${String(attributes["service_principal"])}, which the service manages`,
        });
        continue;
      }
      inTerraform.push({ kind, attributes, address });
    }
  }

  const nameOf = new Map<string, string>();
  for (const { kind, attributes } of inTerraform) {
    const id = str(attributes["id"]);
    const name = str(attributes["name"]);
    if (id && name && kind !== "accountAssociation") nameOf.set(id, name);
  }
  for (const { kind, attributes, address } of inTerraform) {
    const id = str(attributes["id"]);
    let item: Found;
    switch (kind) {
      case "group":
      case "identity":
      case "role":
      case "identityProvider":
        item = {
          kind,
          uid: id!,
          base: str(attributes["name"]) ?? IMPORT_KINDS[kind].label,
          group: str(attributes["parent_id"]) ?? parentOf(id!),
        };
        break;
      case "roleBinding": {
        const who = nameOf.get(str(attributes["identity"]) ?? "") ?? "identity";
        const what = nameOf.get(str(attributes["role"]) ?? "") ?? "role";
        item = {
          kind,
          uid: id!,
          base: `${who}-${what}`,
          group: str(attributes["group"]) ?? parentOf(id!),
        };
        break;
      }
      case "groupInvite": {
        const group = str(attributes["group"]) ?? parentOf(id!);
        item = { kind, uid: id!, base: `${nameOf.get(group ?? "") ?? "group"}-invite`, group };
        break;
      }
      case "accountAssociation": {
        // Its uid is its group's uid.
        const uid = id ?? str(attributes["group"])!;
        item = {
          kind,
          uid,
          base: str(attributes["name"]) ?? "accounts",
          group: str(attributes["group"]) ?? uid,
        };
        break;
      }
    }
    const strings = stringLeaves(attributes, ["id", "code", "client_secret"]);
    const outputName = kind === "roleBinding" || kind === "groupInvite" ? undefined : str(attributes["name"]);
    found.push({ ...item, strings, ...(outputName !== undefined ? { outputName } : {}) });
    addresses.push(address);
  }

  const counts = countKinds(found);
  const document = buildDocument(found, {
    source: `terraform ${file}`,
    notes: (names) =>
      unrecoverableNotes(found, names).map((note) =>
        note.type === IMPORT_KINDS.identityProvider.token
          ? { ...note, todo: `${note.todo}; the Terraform state holds it as oidc.client_secret` }
          : note.type === IMPORT_KINDS.groupInvite.token
            ? { ...note, todo: `${note.todo}; the Terraform state holds it as code` }
            : note,
      ),
    skipped,
    terraformAddresses: addresses,
  });
  return { document, counts, addresses };
}
