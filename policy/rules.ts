/**
 * The rules of the pulumi-platform policy pack (../docs/policy-pack.md says why each matters and how to configure
 * or disable it). Every violation is one line: `[rule] ResourceKind 'name': field ...; fix`. A value unknown during a
 * preview never fails a rule: the rule skips it and the engine runs it again at `up`, when the value is known.
 */
import type {
  EnforcementLevel,
  PolicyConfigSchema,
  PolicyResource,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import { RE2JS } from "re2js";
import { durationSeconds } from "../provider/iam/duration";
import { DEFAULT_PUBLIC_ISSUERS, ISSUER_SHAPE, hostOf, subjectOf } from "./claim-shapes";
import {
  capabilitiesOn,
  capabilityFor,
  grantsOn,
  isPrivileged,
  needsOf,
  unmetNeeds,
} from "../sdk/access-model";
import type { Capability } from "../sdk/schemas/capabilities";
import { type ModelBinding, type Principal, type StackAccess, isWorkload, stackAccess } from "./access";
import { accessPlan } from "./access-plan";
import { breadthOf } from "./pattern-breadth";
import { bindingsOf, ofKind } from "./stack";
import {
  EMULATOR_OWNER_ROLE_UID,
  type ResourceKind,
  type Maybe,
  UNKNOWN,
  describe,
  kindOf,
  known,
  text,
} from "./resources";

type Props = Record<string, unknown>;
type Config = Record<string, unknown>;

const DAY_MS = 86_400_000;

/** Configuration shared by several rules, declared once. */
const PUBLIC_ISSUERS_SCHEMA = {
  type: "array",
  items: { type: "string" },
  default: DEFAULT_PUBLIC_ISSUERS,
  description:
    'Issuer URLs of public multi-tenant OIDC issuers; an entry ending in "/" stands for every issuer under it.',
} as const;
const OWNER_ROLE_UIDS_SCHEMA = {
  type: "array",
  items: { type: "string" },
  default: [EMULATOR_OWNER_ROLE_UID],
  description:
    "The uids of the built-in owner role (40 hex characters). The default is the emulator's; set your service's.",
} as const;

interface RuleDefinition {
  name: string;
  description: string;
  enforcementLevel: EnforcementLevel;
  config: PolicyConfigSchema["properties"];
}

function configOf(rule: RuleDefinition, args: { getConfig<T extends object>(): T }): Config {
  const defaults = Object.fromEntries(
    Object.entries(rule.config).map(([key, schema]) => [key, (schema as { default?: unknown }).default]),
  );
  return { ...defaults, ...args.getConfig<Config>() };
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

/** Reports one line of a rule about one resource; the rule's name and the resource are put in front. */
type Report = (line: string) => void;

/** What a resource rule checks: one resource of its kinds. */
type ResourceCheck = (props: Props, config: Config, report: Report, now: number) => void;
/** What a stack rule checks: every resource of the stack, reporting lines about any of them. */
type StackCheck = (
  resources: readonly PolicyResource[],
  config: Config,
  report: (r: PolicyResource, line: string) => void,
) => void;

/**
 * The pack's one rule shape: a definition (name, description, enforcement level, settings with defaults), a guard
 * that ends the rule quietly on a value not known yet (a preview; the engine runs it again at `up`), and the one
 * message form `[rule] ResourceKind 'name': line`. A rule checks some kinds of resource one at a time, or the whole stack.
 */
function rule(
  definition: RuleDefinition,
  target: { kinds: readonly ResourceKind[]; check: ResourceCheck },
): ResourceValidationPolicy;
function rule(definition: RuleDefinition, target: { stack: StackCheck }): StackValidationPolicy;
function rule(
  definition: RuleDefinition,
  target: { kinds: readonly ResourceKind[]; check: ResourceCheck } | { stack: StackCheck },
): ResourceValidationPolicy | StackValidationPolicy {
  const shape = {
    name: definition.name,
    description: definition.description,
    enforcementLevel: definition.enforcementLevel,
    configSchema: { properties: definition.config },
  };
  const line = (name: string, type: string, text: string) =>
    `[${definition.name}] ${describe(name, type)}: ${text}`;
  if ("stack" in target) {
    return {
      ...shape,
      validateStack: (args: StackValidationArgs, reportViolation: ReportViolation) => {
        const report = (resource: PolicyResource, text: string) =>
          reportViolation(line(resource.name, resource.type, text), resource.urn);
        void known(() => target.stack(args.resources, configOf(definition, args), report));
      },
    };
  }
  return {
    ...shape,
    validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
      const kind = kindOf(args.type);
      if (kind === undefined || !target.kinds.includes(kind)) return;
      const report = (text: string) => reportViolation(line(args.name, args.type, text));
      void known(() => target.check(args.props, configOf(definition, args), report, Date.now()));
    },
  };
}

/** A rule over some kinds of resource, one at a time. */
const resourceRule = (definition: RuleDefinition, kinds: readonly ResourceKind[], check: ResourceCheck) =>
  rule(definition, { kinds, check });

/** A rule over the whole stack. */
const stackRule = (definition: RuleDefinition, check: StackCheck) => rule(definition, { stack: check });

/** A field's value when it is set and known; undefined when absent, empty or not known yet (a preview). */
const given = (read: () => unknown): string | undefined => {
  const value = known(() => text(read()));
  return value === UNKNOWN ? undefined : value;
};

// ---------------------------------------------------------------------------------------------------------------
// Identities trusting public issuers

/** The public issuers a claimMatch trusts (through its issuer or an issuerPattern that matches them). */
function trustedPublicIssuers(claimMatch: Props, config: Config): Maybe<string[]> {
  const entries = strings(config.publicIssuers);
  const issuer = known(() => text(claimMatch.issuer));
  const pattern = known(() => text(claimMatch.issuerPattern));
  if (issuer === UNKNOWN || pattern === UNKNOWN) return UNKNOWN;
  const trusted: string[] = [];
  for (const entry of entries) {
    const isPrefix = entry.endsWith("/");
    if (issuer !== undefined) {
      const same = isPrefix ? issuer.startsWith(entry) : trimSlash(issuer) === trimSlash(entry);
      if (same) trusted.push(isPrefix ? issuer : entry);
    }
    if (pattern !== undefined) {
      // A prefix entry stands for the issuers under it: try one, as a token of such an issuer would carry.
      const sample = isPrefix ? `${entry}00000000-0000-0000-0000-000000000000` : entry;
      if (matchesWhole(pattern, sample)) trusted.push(sample);
    }
  }
  return trusted;
}

const trimSlash = (url: string) => url.replace(/\/+$/, "").toLowerCase();

function matchesWhole(pattern: string, value: string): boolean {
  try {
    return RE2JS.compile(pattern).matches(value);
  } catch {
    return false; // an invalid pattern fails the provider's own check
  }
}

function claimMatchOf(props: Props): Props | undefined {
  const claimMatch = props.claimMatch;
  return typeof claimMatch === "object" && claimMatch !== null ? (claimMatch as Props) : undefined;
}

const SUBJECT_PINNED: RuleDefinition = {
  name: "identity-subject-pinned",
  description:
    "An identity that trusts a public OIDC issuer must pin the subject to one repository or project: an exact subject, or a subjectPattern that cannot match two.",
  enforcementLevel: "mandatory",
  config: { publicIssuers: PUBLIC_ISSUERS_SCHEMA },
};

const subjectPinned = resourceRule(SUBJECT_PINNED, ["Identity"], (props, config, report) => {
  const claimMatch = claimMatchOf(props);
  if (claimMatch === undefined) return;
  const issuers = trustedPublicIssuers(claimMatch, config);
  if (issuers === UNKNOWN || issuers.length === 0) return;
  const subject = known(() => text(claimMatch.subject));
  const pattern = known(() => text(claimMatch.subjectPattern));
  if (subject === UNKNOWN || pattern === UNKNOWN || subject !== undefined) return;
  for (const issuer of issuers) {
    const shape = subjectOf(issuer);
    const example = shape.example(shape.unitName === "repository" ? "acme/deploy" : "<one>");
    if (pattern === undefined) {
      report(
        `claimMatch trusts the public issuer ${issuer} with no subject, so any ${shape.unitName} can assume it; set claimMatch.subject, e.g. '${example}'`,
      );
      return;
    }
    const breadth = breadthOf(pattern, shape.shape);
    if (breadth.kind === "broad") {
      const [first, second] = breadth.witnesses;
      report(
        `claimMatch.subjectPattern '${pattern}' matches the subjects of more than one ${shape.unitName} of ${issuer} (e.g. '${first}' and '${second}'); pin the ${shape.unitName}: subject '${shape.example(breadth.units[0])}'`,
      );
      return;
    }
    if (breadth.kind === "undecided") {
      report(
        `claimMatch.subjectPattern '${pattern}' cannot be shown to match a single ${shape.unitName} of ${issuer} (${breadth.reason}); use an exact subject, e.g. '${example}'`,
      );
      return;
    }
  }
});

const ISSUER_PATTERN_SINGLE_HOST: RuleDefinition = {
  name: "identity-issuer-pattern-single-host",
  description:
    "An identity's issuerPattern must not match more than one host: tokens from any host it matches are accepted.",
  enforcementLevel: "mandatory",
  config: {},
};

const issuerPatternSingleHost = resourceRule(
  ISSUER_PATTERN_SINGLE_HOST,
  ["Identity"],
  (props, _config, report) => {
    const claimMatch = claimMatchOf(props);
    if (claimMatch === undefined) return;
    const pattern = given(() => claimMatch.issuerPattern);
    if (pattern === undefined) return;
    const breadth = breadthOf(pattern, ISSUER_SHAPE);
    if (breadth.kind === "broad") {
      const [first, second] = breadth.witnesses;
      report(
        `claimMatch.issuerPattern '${pattern}' matches issuers on more than one host (e.g. '${first}' and '${second}'); set claimMatch.issuer to the one issuer URL, e.g. 'https://${breadth.units[0]}'`,
      );
    } else if (breadth.kind === "undecided") {
      report(
        `claimMatch.issuerPattern '${pattern}' cannot be shown to match a single host (${breadth.reason}); set claimMatch.issuer to the exact issuer URL`,
      );
    }
  },
);

const AUDIENCE_REQUIRED: RuleDefinition = {
  name: "identity-audience-required",
  description:
    "An identity that trusts a public OIDC issuer must require an audience, so a token minted for another service is refused.",
  enforcementLevel: "mandatory",
  config: { publicIssuers: PUBLIC_ISSUERS_SCHEMA },
};

const audienceRequired = resourceRule(AUDIENCE_REQUIRED, ["Identity"], (props, config, report) => {
  const claimMatch = claimMatchOf(props);
  if (claimMatch === undefined) return;
  const issuers = trustedPublicIssuers(claimMatch, config);
  if (issuers === UNKNOWN || issuers.length === 0) return;
  const audience = known(() => text(claimMatch.audience) ?? text(claimMatch.audiencePattern));
  if (audience !== undefined) return; // set, or not known yet
  report(
    `claimMatch has no audience, so a token ${issuers[0]} issued for any other service is accepted; set claimMatch.audience to the audience your workflow requests, e.g. 'platform.example.com'`,
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Static keys, invites, identity providers

const STATIC_KEYS_LIFETIME: RuleDefinition = {
  name: "static-keys-max-lifetime",
  description: "Static keys must expire within a bounded number of days, so a leaked key stops working.",
  enforcementLevel: "mandatory",
  config: {
    maxDays: {
      type: "number",
      minimum: 1,
      default: 90,
      description: "The longest a key may stay valid, in days.",
    },
  },
};

const staticKeysLifetime = resourceRule(STATIC_KEYS_LIFETIME, ["Identity"], (props, config, report, now) => {
  const staticKeys = props.staticKeys;
  if (typeof staticKeys !== "object" || staticKeys === null) return;
  const expiration = given(() => (staticKeys as Props).expirationTime);
  if (expiration === undefined) return;
  const maxDays = Number(config.maxDays);
  const days = (Date.parse(expiration) - now) / DAY_MS;
  if (!(days > maxDays)) return;
  const latest = new Date(now + maxDays * DAY_MS).toISOString().slice(0, 10);
  report(
    `staticKeys.expirationTime '${expiration}' is ${Math.ceil(days)} days away, more than ${maxDays}; set it on or before ${latest} and rotate the keys then`,
  );
});

const INVITE_BOUNDED: RuleDefinition = {
  name: "group-invite-bounded",
  description:
    "A group invite must name the email that may accept it, expire soon, and not grant the owner role.",
  enforcementLevel: "mandatory",
  config: {
    maxDays: {
      type: "number",
      minimum: 0,
      default: 7,
      description: "The longest an invite may stay valid, in days.",
    },
    ownerRoleUids: OWNER_ROLE_UIDS_SCHEMA,
  },
};

const inviteBounded = resourceRule(INVITE_BOUNDED, ["GroupInvite"], (props, config, report, now) => {
  const email = known(() => text(props.email));
  if (email === undefined) {
    report(`email is not set, so anyone who gets the code can accept it; set email to the invitee's address`);
  }
  const maxDays = Number(config.maxDays);
  const ttl = known(() => text(props.ttl));
  const expiration = known(() => text(props.expirationTime));
  if (ttl !== UNKNOWN && ttl !== undefined) {
    const days = (durationSeconds(ttl) ?? 0) / 86_400;
    if (days > maxDays)
      report(`ttl '${ttl}' is longer than ${maxDays} days; set ttl to at most '${maxDays * 24}h'`);
  } else if (ttl === undefined && expiration !== UNKNOWN && expiration !== undefined) {
    const days = (Date.parse(expiration) - now) / DAY_MS;
    if (days > maxDays)
      report(
        `expirationTime '${expiration}' is more than ${maxDays} days away; use ttl '${maxDays * 24}h' or an earlier expirationTime`,
      );
  }
  const roleUid = given(() => props.roleUid);
  if (roleUid !== undefined && strings(config.ownerRoleUids).includes(roleUid)) {
    report(
      `roleUid '${roleUid}' is the built-in owner role; invite with a narrower role (viewer, editor or a custom role) and grant owner by a reviewed RoleBinding`,
    );
  }
});

const PROVIDER_DEFAULT_ROLE: RuleDefinition = {
  name: "identity-provider-default-role-not-owner",
  description:
    "An identity provider's default role is given to every user who signs in through it; it must not be owner.",
  enforcementLevel: "mandatory",
  config: { ownerRoleUids: OWNER_ROLE_UIDS_SCHEMA },
};

const providerDefaultRole = resourceRule(
  PROVIDER_DEFAULT_ROLE,
  ["IdentityProvider"],
  (props, config, report) => {
    const role = given(() => props.defaultRole);
    if (role === undefined || !strings(config.ownerRoleUids).includes(role)) return;
    report(
      `defaultRole '${role}' is the built-in owner role, given to everyone who signs in; set defaultRole to viewer's uid and grant more by RoleBinding`,
    );
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Stack rules: bindings and the identities and roles they reference

const OWNER_AT_ROOT: RuleDefinition = {
  name: "workload-identity-not-owner-at-root",
  description:
    "The built-in owner role must not be bound to a workload identity at an organization root: whoever can present its token controls the whole organization.",
  enforcementLevel: "mandatory",
  config: { ownerRoleUids: OWNER_ROLE_UIDS_SCHEMA },
};

const ownerAtRoot = stackRule(OWNER_AT_ROOT, (resources, config, report) => {
  const owners = strings(config.ownerRoleUids);
  for (const binding of bindingsOf(resources)) {
    if (binding.identity === undefined || binding.atRoot !== true) continue;
    if (binding.roleUid === UNKNOWN || binding.roleUid === undefined || !owners.includes(binding.roleUid))
      continue;
    report(
      binding.resource,
      `${binding.at}roleUid is the built-in owner role, bound to workload ${describe(binding.identity.name, binding.identity.type)} at the organization root (${binding.at}groupUid); bind a custom role with only the capabilities it needs, on the folder it deploys to`,
    );
  }
});

/** Capabilities that together let a role's holder grant itself anything. */
const GRANT: Capability = "CAP_IAM_ROLE_BINDINGS_CREATE";
const WRITE_ROLES: Capability[] = ["CAP_IAM_ROLES_CREATE", "CAP_IAM_ROLES_UPDATE"];

const SELF_GRANTING: RuleDefinition = {
  name: "workload-identity-no-self-granting-role",
  description:
    "A custom role that can both create role bindings and create or update roles lets its holder grant itself anything; it must not be bound to a workload identity.",
  enforcementLevel: "mandatory",
  config: {},
};

const selfGranting = stackRule(SELF_GRANTING, (resources, _config, report) => {
  for (const binding of bindingsOf(resources)) {
    if (binding.identity === undefined || binding.role === undefined) continue;
    const role = binding.role;
    const capabilities = known(() => strings(role.props.capabilities));
    if (capabilities === UNKNOWN || !capabilities.includes(GRANT)) continue;
    const writes = WRITE_ROLES.filter((c) => capabilities.includes(c));
    if (writes.length === 0) continue;
    report(
      binding.resource,
      `${binding.at}roleUid is ${describe(role.name, role.type)}, whose capabilities ${GRANT} and ${writes.join(" and ")} let workload ${describe(binding.identity.name, binding.identity.type)} grant itself any role; drop ${writes.join(" and ")} or ${GRANT} from the role's capabilities`,
    );
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Stack rules: escalation, through the shared access model over the stack's own bindings (./access)

/** At most `n` capabilities by name, then how many more. */
function some(capabilities: readonly string[], n = 4): string {
  const shown = capabilities.slice(0, n).join(", ");
  return capabilities.length > n ? `${shown} and ${capabilities.length - n} more` : shown;
}

/** The stack's workload identities (claimMatch, staticKeys, awsIdentity) that hold at least one binding. */
function workloads(access: StackAccess): Principal[] {
  return [...access.principals.values()].filter(
    (p) =>
      p.kind === "identities" &&
      p.resource !== undefined &&
      isWorkload(p.resource) &&
      access.model.bindingsOf(p.key).length > 0,
  );
}

const where = (b: ModelBinding) => `${b.at}${b.roleField}`;
const describeResource = (r: PolicyResource) => describe(r.name, r.type);

const PRIVILEGED: RuleDefinition = {
  name: "workload-identity-privileged",
  description:
    "Flags a workload identity that would hold a privileged capability (one that grants access: role bindings, roles, identities, invites, identity providers) through the stack's bindings, naming the capability, the group and the binding; says once per role when a role's capabilities cannot be known.",
  enforcementLevel: "advisory",
  config: { ownerRoleUids: OWNER_ROLE_UIDS_SCHEMA },
};

const privileged = stackRule(PRIVILEGED, (resources, config, report) => {
  const access = stackAccess(resources, strings(config.ownerRoleUids));
  for (const workload of workloads(access)) {
    for (const own of access.model.bindingsOf(workload.key)) {
      const binding = access.bindings.get(own.uid);
      if (binding === undefined) continue;
      const grants = grantsOn(access.model, workload.key, own.group);
      const capabilities = [...grants]
        .filter(([capability, through]) => isPrivileged(capability) && through.includes(own))
        .map(([capability]) => capability)
        .sort();
      if (capabilities.length === 0) continue;
      report(
        binding.resource,
        `${where(binding)} gives workload ${workload.label} the privileged ${capabilities.length === 1 ? "capability" : "capabilities"} ${capabilities.join(", ")} on ${access.groupLabel(own.group)} (through ${access.roleLabel(own.role)}), with which whoever presents its token grants access; bind a role without them, or keep this rule advisory for a stack whose workload manages access on purpose`,
      );
    }
  }
  for (const role of access.unknownRoles) {
    const [first] = role.bindings;
    if (first === undefined) continue;
    const named = role.bindings.map((b) => `${describeResource(b.resource)} ${where(b)}`).join(", ");
    report(
      first.resource,
      `${where(first)} '${role.uid}' is neither a custom Role of this stack nor a built-in role the pack can name, so its capabilities are unknown and the access rules skip ${named}; if it is the built-in owner role, add it to ownerRoleUids`,
    );
  }
});

const TAKEOVER: RuleDefinition = {
  name: "workload-identity-no-takeover",
  description:
    "A workload identity must not be able to update an identity (or identity provider) that holds capabilities it lacks: rewriting who may assume it grants nothing, so the service's no-escalation rule does not stop it, and the workload then acts as the stronger principal.",
  enforcementLevel: "mandatory",
  config: { ownerRoleUids: OWNER_ROLE_UIDS_SCHEMA },
};

/** The first group where `target` holds capabilities `actor` lacks there, with the target's binding granting them. */
function strongerSomewhere(access: StackAccess, target: Principal, actor: Principal) {
  for (const own of access.model.bindingsOf(target.key)) {
    const held = capabilitiesOn(access.model, actor.key, own.group);
    const lacking = [...capabilitiesOn(access.model, target.key, own.group)]
      .filter((c) => !held.has(c))
      .sort();
    const binding = access.bindings.get(own.uid);
    if (lacking.length > 0 && binding !== undefined) return { group: own.group, lacking, binding };
  }
  return undefined;
}

const takeover = stackRule(TAKEOVER, (resources, config, report) => {
  const access = stackAccess(resources, strings(config.ownerRoleUids));
  for (const actor of workloads(access)) {
    for (const target of access.principals.values()) {
      if (target.key === actor.key) continue;
      const operation = { verb: "UPDATE", collection: target.kind, uid: target.uid } as const;
      if (unmetNeeds(access.model, actor.key, operation).length > 0) continue;
      const stronger = strongerSomewhere(access, target, actor);
      if (stronger === undefined) continue;
      const update = capabilityFor(target.kind, "UPDATE");
      const [need] = needsOf(operation).filter((n) => n.capability === update);
      const [through] =
        need === undefined ? [] : (grantsOn(access.model, actor.key, need.group).get(update) ?? []);
      const binding = through === undefined ? undefined : access.bindings.get(through.uid);
      if (need === undefined || binding === undefined) continue;
      const rewrite = target.kind === "identities" ? "who may assume it" : "whose sign-ins it accepts";
      report(
        binding.resource,
        `${where(binding)} gives workload ${actor.label} ${update} on ${access.groupLabel(need.group)}, where ${target.label} lives: it can rewrite ${rewrite} and act as it, gaining ${some(stronger.lacking)} on ${access.groupLabel(stronger.group)} (${describeResource(stronger.binding.resource)} ${where(stronger.binding)}), which it lacks there; bind ${actor.label} a role without ${update} on that group, or keep ${target.label} where it cannot update it`,
      );
    }
  }
});

const UNUSED_IDENTITY: RuleDefinition = {
  name: "identity-unused",
  description:
    "An identity that no binding in the stack uses grants nothing; it may be left over, or its binding may be missing.",
  enforcementLevel: "advisory",
  config: {},
};

/** Resources that grant roles to identities: role bindings, and the access sets holding several bindings. */
const BINDING_KINDS: readonly ResourceKind[] = ["RoleBinding", "GroupAccess", "IdentityAccess"];

const unusedIdentity = stackRule(UNUSED_IDENTITY, (resources, _config, report) => {
  const granting = resources.filter((r) => BINDING_KINDS.includes(kindOf(r.type) as ResourceKind));
  const usedUrns = new Set(granting.flatMap((r) => r.dependencies.map((d) => d.urn)));
  const mentioned = JSON.stringify(granting.map((r) => known(() => JSON.stringify(r.props))));
  for (const identity of ofKind(resources, "Identity")) {
    if (usedUrns.has(identity.urn)) continue;
    // A uid not known yet can only reach a binding through a dependency, which the program records.
    const uid = known(() => text(identity.props.uid));
    if (uid !== UNKNOWN && uid !== undefined && mentioned.includes(uid)) continue;
    report(
      identity,
      "no role binding in this stack uses it; bind a role to it (RoleBinding identityUid) or remove it",
    );
  }
});

/** The pack's rules, in the order the docs list them. */
export const POLICIES = [
  subjectPinned,
  issuerPatternSingleHost,
  audienceRequired,
  ownerAtRoot,
  selfGranting,
  takeover,
  privileged,
  staticKeysLifetime,
  inviteBounded,
  providerDefaultRole,
  unusedIdentity,
  accessPlan,
];

/** Used by the docs' drift test: the public issuers' hosts the subject rule knows the shape of. */
export const KNOWN_ISSUER_HOSTS = DEFAULT_PUBLIC_ISSUERS.map((url) => hostOf(url));
