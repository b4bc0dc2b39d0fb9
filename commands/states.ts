/**
 * What stacks manage, read from their exported states (`pulumi stack export`): every resource of this package, of
 * either front (the native plugin's `platform:<module>:<Type>`, and the dynamic provider's
 * `pulumi-nodejs:dynamic/<module>:<Type>`, or a plain `pulumi-nodejs:dynamic:Resource` whose saved provider is one of
 * this package's), with its id (the object's uid) and, for the authoritative access resources, the scope they hold.
 * Resources read with `get` (`external`) and those pending deletion are not managed; other providers' are ignored.
 *
 * May import: ../provider/catalogue, ../provider/iam/access and access-provider (types), ./kinds, ./command (Refusal).
 */
import { RESOURCES } from "../provider/catalogue";
import type { Scope } from "../provider/iam/access";
import type { AccessDescription } from "../provider/iam/access-provider";
import { KINDS, LISTED_KINDS, type ListedKind } from "./kinds";
import { Refusal } from "./command";

/** An object a stack manages. */
export interface Managed {
  kind: ListedKind;
  /** The type token as the schema spells it, e.g. `platform:iam:Identity`. */
  token: string;
  uid: string;
  urn: string;
  /** The state file it came from. */
  state: string;
}

export interface ManagedAccess {
  token: string;
  urn: string;
  state: string;
  /** The bindings it holds: every binding in this scope, whichever they are. */
  scope: Scope;
}

export interface StateContents {
  managed: Managed[];
  access: ManagedAccess[];
}

interface StateResource {
  urn?: string;
  type?: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  external?: boolean;
  delete?: boolean;
}

const DYNAMIC_TYPED = /^pulumi-nodejs:dynamic\/(\w+):(\w+)$/;
const DYNAMIC_PLAIN = "pulumi-nodejs:dynamic:Resource";
/** A saved provider of this package names its module: `.../provider/iam/role-binding.provider`. */
const SAVED_PROVIDER = /provider\/(\w+)\/([a-z-]+)\.provider\b/;

const byToken = new Map<string, ListedKind>(LISTED_KINDS.map((kind) => [KINDS[kind].token, kind]));

/** `role-binding` -> `RoleBinding`. */
function className(stem: string): string {
  return stem.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase());
}

/** The schema's type token of a resource of this package, of either front, or undefined for another's. */
export function tokenOf(resource: { type?: string; inputs?: Record<string, unknown> }): string | undefined {
  const type = resource.type ?? "";
  if (type.startsWith("platform:") && !type.startsWith("platform:index:")) return type;
  const typed = DYNAMIC_TYPED.exec(type);
  if (typed) return `platform:${typed[1]}:${typed[2]}`;
  if (type === DYNAMIC_PLAIN) {
    const saved = resource.inputs?.["__provider"];
    const match = typeof saved === "string" ? SAVED_PROVIDER.exec(saved) : null;
    if (match) return `platform:${match[1]}:${className(match[2]!)}`;
  }
  return undefined;
}

/** The authoritative access resources of the catalogue, by token: they tell their scope from their state. */
const ACCESS = new Map<string, AccessDescription>(
  RESOURCES.filter(({ description }) => "scopeOfId" in description).map(({ declaration, description }) => [
    declaration.token,
    description as AccessDescription,
  ]),
);

/** The scope an access resource holds, from its recorded properties (its id when they do not say). */
function accessScope(description: AccessDescription, resource: StateResource): Scope | undefined {
  const props = { ...resource.inputs, ...resource.outputs };
  return description.scopeOf(props) ?? (resource.id ? description.scopeOfId(resource.id) : undefined);
}

/** Reads one exported state; throws Refusal (one line) for a file that is not one. */
export function readState(text: string, file: string): StateContents {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Refusal(`${file} is not a Pulumi state export: it is not JSON`);
  }
  const deployment = (parsed as { deployment?: { resources?: unknown } } | null)?.deployment;
  if (typeof deployment !== "object" || deployment === null)
    throw new Refusal(
      `${file} is not a Pulumi state export: it has no "deployment" (make it with pulumi stack export)`,
    );
  const resources = deployment.resources ?? [];
  if (!Array.isArray(resources))
    throw new Refusal(`${file} is not a Pulumi state export: "deployment.resources" is not a list`);
  const managed: Managed[] = [];
  const access: ManagedAccess[] = [];
  for (const resource of resources as StateResource[]) {
    if (resource.external === true || resource.delete === true) continue;
    const token = tokenOf(resource);
    if (token === undefined) continue;
    const urn = resource.urn ?? "";
    const kind = byToken.get(token);
    if (kind !== undefined) {
      if (resource.id) managed.push({ kind, token, uid: resource.id, urn, state: file });
      continue;
    }
    const description = ACCESS.get(token);
    const scope = description && accessScope(description, resource);
    if (scope !== undefined) access.push({ token, urn, state: file, scope });
  }
  return { managed, access };
}
