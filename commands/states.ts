/**
 * What stacks manage, read from their exported states (`pulumi stack export`, secrets left encrypted): every
 * resource of this package, of either front (the native plugin's `platform:<module>:<Type>`, and the dynamic
 * provider's `pulumi-nodejs:dynamic/<module>:<Type>`, or a plain `pulumi-nodejs:dynamic:Resource` whose saved
 * provider is one of this package's), with its id (the object's uid); for a role binding the binding its inputs
 * declare; for the authoritative access resources, the scope they hold and the bindings they declare. Resources read
 * with `get` (`external`) and those pending deletion are not managed; other providers' are ignored.
 *
 * A value the export keeps encrypted (a secret) is never opened, and what it hides is never guessed: it counts as
 * not known. A resource whose type or scope only a secret would tell is named as unreadable; an id is never secret.
 *
 * `Managers` indexes what a set of states manage: the resources that hold an object by its uid, and the access
 * resources whose scope holds a binding.
 */
import { UNKNOWN, containsUnknown } from "../provider/core/check";
import { inScope, type Binding, type Scope } from "../provider/iam/access";
import type { AccessDescription } from "../provider/iam/access-provider";
import { ancestorsOrSelf } from "../sdk/access-model";
import type { ListedKind } from "./kinds";
import { Refusal } from "./command";

/** The key and values of the engine's special objects (sdk/go/common/resource/sig). */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** An object a stack manages. */
export interface Managed {
  kind: ListedKind;
  /** The type token as the schema spells it, e.g. `platform:iam:Identity`. */
  token: string;
  uid: string;
  urn: string;
  /** The state it came from: the stack's name, or the file given. */
  state: string;
  /** A role binding's group, identity and role, from its inputs (absent when one of them is secret). */
  binding?: Binding;
}

export interface ManagedAccess {
  token: string;
  urn: string;
  state: string;
  /** The bindings it holds: every binding in this scope, whichever they are. */
  scope: Scope;
  /** The bindings it declares, from its inputs (absent when they are secret). */
  declared?: Binding[];
}

/** A resource whose part in the report only a secret value would tell. */
export interface UnreadableResource {
  urn: string;
  state: string;
  reason: string;
}

export interface StateContents {
  managed: Managed[];
  access: ManagedAccess[];
  unreadable: UnreadableResource[];
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

let tokens: { listed: Map<string, ListedKind>; access: Set<string> } | undefined;

/**
 * The kinds by type token: the service's objects, and the access resources. Made with the first state read (./kinds
 * loads the declarations), so a review of no state never loads them.
 */
function kindsByToken(): { listed: Map<string, ListedKind>; access: Set<string> } {
  if (tokens === undefined) {
    const { ACCESS_KINDS, IMPORT_KINDS, LISTED_KINDS } = require("./kinds") as typeof import("./kinds");
    tokens = {
      listed: new Map(LISTED_KINDS.map((kind) => [IMPORT_KINDS[kind].token, kind])),
      access: new Set(ACCESS_KINDS.map((kind) => IMPORT_KINDS[kind].token)),
    };
  }
  return tokens;
}

/** `role-binding` -> `RoleBinding`. */
function className(stem: string): string {
  return stem.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase());
}

/** Whether a recorded value is a secret the export keeps encrypted. */
export function isSecret(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.hasOwn(value, SIG_KEY) &&
    (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG
  );
}

/** The value with every secret in it replaced by the unknown sentinel: what the provider's code cannot rely on. */
function masked(value: unknown): unknown {
  if (isSecret(value)) return UNKNOWN;
  if (Array.isArray(value)) return value.map(masked);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v)]));
  return value;
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

let accessResources: Map<string, AccessDescription> | undefined;

/**
 * The authoritative access resources of the catalogue, by token: they tell their scope from their state. The
 * catalogue (every implementation, and the Pulumi SDK) is loaded on the first state that holds one.
 */
function accessDescription(token: string): AccessDescription | undefined {
  if (!kindsByToken().access.has(token)) return undefined;
  if (accessResources === undefined) {
    const { RESOURCES } = require("../provider/catalogue") as typeof import("../provider/catalogue");
    accessResources = new Map(
      RESOURCES.filter(({ description }) => "scopeOf" in description && "scopeOfId" in description).map(
        ({ declaration, description }) => [declaration.token, description as AccessDescription],
      ),
    );
  }
  return accessResources.get(token);
}

/** The recorded properties, secrets masked. */
function propsOf(resource: StateResource): Record<string, unknown> {
  return masked({ ...resource.inputs, ...resource.outputs }) as Record<string, unknown>;
}

/** The scope an access resource holds, from its recorded properties (its id when they do not say). */
function accessScope(
  description: AccessDescription,
  resource: StateResource,
  props: Record<string, unknown>,
): Scope | undefined {
  return description.scopeOf(props) ?? (resource.id ? description.scopeOfId(resource.id) : undefined);
}

/** The bindings an access resource declares (from its recorded properties), unless a secret hides them. */
function declaredBindings(
  description: AccessDescription,
  props: Record<string, unknown>,
  scope: Scope,
): Binding[] | undefined {
  if (containsUnknown(props["bindings"])) return undefined;
  return description.declaredOf(props, scope);
}

/** A role binding's group, identity and role from its inputs, unless one of them is secret or missing. */
function bindingOf(resource: StateResource): Binding | undefined {
  const inputs = masked(resource.inputs ?? {}) as Record<string, unknown>;
  const { groupUid, identityUid, roleUid } = inputs;
  const known = (v: unknown): v is string => typeof v === "string" && v !== "" && v !== UNKNOWN;
  return known(groupUid) && known(identityUid) && known(roleUid)
    ? { groupUid, identityUid, roleUid }
    : undefined;
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
  const contents: StateContents = { managed: [], access: [], unreadable: [] };
  for (const resource of resources as StateResource[]) readResource(resource, file, contents);
  return contents;
}

/** Adds what one recorded resource manages to `contents`. */
function readResource(resource: StateResource, state: string, contents: StateContents): void {
  if (resource.external === true || resource.delete === true) return;
  const urn = resource.urn ?? "";
  const token = tokenOf(resource);
  if (token === undefined) {
    if (resource.type === DYNAMIC_PLAIN && isSecret(resource.inputs?.["__provider"]))
      contents.unreadable.push({
        urn,
        state,
        reason:
          "a dynamic resource whose provider code the state keeps secret: whose resource it is is not known",
      });
    return;
  }
  const kind = kindsByToken().listed.get(token);
  if (kind !== undefined) {
    if (!resource.id) return;
    const binding = kind === "roleBinding" ? bindingOf(resource) : undefined;
    contents.managed.push({ kind, token, uid: resource.id, urn, state, ...(binding ? { binding } : {}) });
    return;
  }
  const description = accessDescription(token);
  if (description === undefined) return;
  const props = propsOf(resource);
  const scope = accessScope(description, resource, props);
  if (scope === undefined) {
    contents.unreadable.push({ urn, state, reason: "an access resource with no id whose scope is secret" });
    return;
  }
  const declared = declaredBindings(description, props, scope);
  contents.access.push({ token, urn, state, scope, ...(declared ? { declared } : {}) });
}

/** A resource that manages something: the stack (or file) it is in, its URN and its type token. */
export interface Manager {
  stack: string;
  urn: string;
  type: string;
}

/** An access resource as a manager, with the scope it holds. */
export interface ScopeHolder extends Manager {
  scope: Scope;
}

/** An access resource with the bindings it declares (none when a secret hides them), for the conflicts. */
export interface AccessHolder {
  holder: ScopeHolder;
  declared: readonly Binding[];
}

/** `platform:iam:RoleBinding::name` ... the resource's name: the URN's last part. */
export function resourceName(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** What a set of states manage, indexed: by object, and by the scopes that hold bindings. */
export class Managers {
  private readonly objects = new Map<string, Manager[]>();
  private readonly onGroup = new Map<string, ScopeHolder[]>();
  private readonly underGroup = new Map<string, ScopeHolder[]>();
  private readonly ofIdentity = new Map<string, ScopeHolder[]>();
  /** Every access resource, in the order of the states. */
  readonly holders: AccessHolder[] = [];

  constructor(states: readonly { contents: StateContents }[]) {
    for (const { contents } of states) {
      for (const m of contents.managed)
        push(this.objects, `${m.kind} ${m.uid}`, { stack: m.state, urn: m.urn, type: m.token });
      for (const a of contents.access) {
        const holder: ScopeHolder = { stack: a.state, urn: a.urn, type: a.token, scope: a.scope };
        this.holders.push({ holder, declared: a.declared ?? [] });
        if (a.scope.kind === "identity") push(this.ofIdentity, a.scope.identityUid, holder);
        else push(a.scope.subtree ? this.underGroup : this.onGroup, a.scope.groupUid, holder);
      }
    }
  }

  /** The resources that hold the object of this kind and uid. */
  of(kind: ListedKind, uid: string): Manager[] {
    return this.objects.get(`${kind} ${uid}`) ?? [];
  }

  /** The access resources whose scope holds `binding`. */
  over(binding: Binding): ScopeHolder[] {
    const found = [
      ...(this.onGroup.get(binding.groupUid) ?? []),
      ...ancestorsOrSelf(binding.groupUid).flatMap((g) => this.underGroup.get(g) ?? []),
      ...(this.ofIdentity.get(binding.identityUid) ?? []),
    ];
    return found.filter((h) => inScope(h.scope, binding));
  }

  /** Every manager of an object: by its uid, and for a role binding the access resources over it. */
  managersOf(kind: ListedKind, uid: string, binding?: Binding): Manager[] {
    const direct = this.of(kind, uid);
    if (binding === undefined) return direct;
    return [...direct, ...this.over(binding).map(({ stack, urn, type }) => ({ stack, urn, type }))];
  }
}
