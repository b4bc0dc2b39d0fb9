/**
 * Builds a resource's operations (check, diff, create, read, update, delete: ResourceOperations) from a small
 * per-resource description, so every resource behaves the same way: zod check before any API call, normalized
 * diff computed once with its per-property detail, ONE PATCH with exactly the changed fields, 404 on read = gone,
 * 404 on delete = done, adopt / no-duplicate create, one error translator. Both fronts are thin adapters over
 * them: the dynamic provider object (dynamicProvider, adding configure) and the native plugin (plugin/server.ts).
 *
 * The objects returned are plain data + functions, reached from each `<stem>.provider.ts` module, so Pulumi
 * serializes a `require()` of the installed package. Nothing here holds a client: clients come from ./client
 * inside each method.
 *
 * A resource module writes a DerivedDescription: its API calls, and the wire only where it differs from the
 * declaration (./wire); `deriveDescription` turns it into the kit's ResourceDescription, whose create body, update
 * body and read-back come from the declaration. A resource whose wire differs throughout may write a whole
 * ResourceDescription instead (its own create, update and inputsOf).
 *
 * At preview the kit also reviews each planned create, update and replacement for access (./access-review): the
 * impact lines of a change that alters who holds what, and the preflight of the operations it will send. Every
 * create, update and delete it performs of an object that matters to access is recorded in the live facts
 * (./live-facts), so the reviews later in the same process (`up`'s) see it.
 */
import { joinWords, said, type Words } from "../../sdk/words";
import type * as pulumi from "@pulumi/pulumi";
import { FailedPreconditionError, NotFoundError, PlatformClient } from "../../sdk";
import { clientFor, configureFromLookup, termsFor } from "./client";
import { createOrAdopt } from "./create";
import type { ResourceDeclaration } from "./declaration";
import { diffFields, propertyChanges, type PropertyChange } from "./diff";
import { Attempt, translateError, withoutHostEcho } from "./errors";
import { checkInputs, containsUnknown } from "./check";
import { PreflightError, reviewChange, type AccessEffectOf, type PlannedChange } from "./access-review";
import { resourceText } from "../../sdk/words";
import { noteName, recordOwnWrite, type OwnWrites } from "./live-facts";
import { inputsFromObject, wireBody, type DeclaredInputs, type WireMapping } from "./wire";

/** Inputs every resource accepts besides its API fields. */
export interface CommonInputs {
  profile?: string | undefined;
  adopt?: boolean | undefined;
}

/** What a resource module tells the kit. `I` = resolved inputs, `T` = the API object. */
export interface ResourceDescription<I extends CommonInputs, T extends { uid: string }> {
  /** The resource's one declaration: its token, its input schema, the fields diff compares, its flags. */
  declaration: ResourceDeclaration;
  /**
   * Inputs that the service keeps unique besides the uid (an account association is one per group): a
   * replacement that keeps them would collide with the old object, so the old one is deleted first.
   */
  uniqueBy?: readonly string[];
  /**
   * Inputs whose change replaces the object besides the declared ones, given the old state and the new inputs
   * (an association's removed block, which a PATCH cannot clear).
   */
  alsoReplaces?: (olds: Record<string, unknown>, news: Record<string, unknown>) => string[];
  /** A readable name for messages. */
  describe: (inputs: Partial<I>) => { name?: string | undefined; where?: Words | undefined };
  get: (client: PlatformClient, uid: string) => Promise<T>;
  create: (client: PlatformClient, inputs: I) => Promise<T>;
  /** Finds an existing object with the same natural key (adopt, and recovery after an ambiguous create). */
  lookup: (client: PlatformClient, inputs: I) => Promise<T | undefined>;
  /** Sends ONE PATCH with exactly `fields` taken from `inputs`; absent when the resource has no update. */
  update?: (client: PlatformClient, uid: string, inputs: I, fields: string[]) => Promise<T>;
  delete: (client: PlatformClient, uid: string) => Promise<void>;
  /** After a refused delete (failed precondition): names what still blocks it, e.g. a group's children. */
  describeBlockers?: (client: PlatformClient, uid: string) => Promise<Words[]>;
  /**
   * The program's inputs rebuilt from a live object (read, so refresh shows drift and no phantom diff): every
   * declared API input, an unset one as undefined, so none is forgotten.
   */
  inputsOf: (object: T) => DeclaredInputs<I>;
  /** Outputs beyond the inputs: uid, times, hydrated references... */
  outputsOf: (object: T) => Record<string, unknown>;
  /** The wire mapping the description was derived with (deriveDescription), for tests that check each field. */
  wire?: WireMapping<I, T>;
  /**
   * What a planned change does to access: the operations it sends (preflight) and the facts after it (impact
   * lines). Absent: the resource's operations need nothing the preview checks.
   */
  accessEffect?: AccessEffectOf;
  /**
   * How the provider's own creates, updates and deletes of it change the live facts the access review reads for
   * the rest of the process. Absent: its objects are not among the facts (./live-facts).
   */
  ownWrites?: OwnWrites<T>;
}

/**
 * What a resource module writes when the declaration drives its wire: the API calls, given bodies derived from
 * the declaration, and the fields whose wire differs (./wire).
 */
export interface DerivedDescription<I extends CommonInputs, T extends { uid: string }> extends Omit<
  ResourceDescription<I, T>,
  "create" | "update" | "inputsOf" | "wire"
> {
  wire: WireMapping<I, T>;
  /** Sends the create; `body` holds every declared input that goes in a body. */
  create: (client: PlatformClient, inputs: I, body: Record<string, unknown>) => Promise<T>;
  /** Sends ONE PATCH of `patch` (exactly the changed fields); absent when the resource has no update. */
  update?: (client: PlatformClient, uid: string, patch: Record<string, unknown>) => Promise<T>;
}

/** The kit's description of a resource whose create body, update body and read-back derive from its declaration. */
export function deriveDescription<I extends CommonInputs, T extends { uid: string }>(
  derived: DerivedDescription<I, T>,
): ResourceDescription<I, T> {
  const { declaration, wire, create, update, ...rest } = derived;
  return {
    ...rest,
    declaration,
    wire,
    create: (client, inputs) => create(client, inputs, wireBody(declaration, wire, inputs)),
    ...(update === undefined
      ? {}
      : {
          update: (client: PlatformClient, uid: string, inputs: I, fields: string[]) =>
            update(client, uid, wireBody(declaration, wire, inputs, fields)),
        }),
    inputsOf: (object) => inputsFromObject(declaration, wire, object),
  };
}

/**
 * Whether a replacement must delete the old object first: when the description names inputs the service keeps
 * unique and the replacement changes none of them (the new object would collide with the old one).
 */
export function deleteBeforeReplace(
  uniqueBy: readonly string[] | undefined,
  replaces: readonly string[],
  changed: readonly string[],
): boolean {
  if (uniqueBy === undefined || replaces.length === 0) return false;
  return uniqueBy.every((key) => !replaces.includes(key) && !changed.includes(key));
}

/** Drops undefined members (protobuf Structs reject them). */
export function compact<T extends Record<string, unknown>>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}

/**
 * The provider's own inputs a state keeps: the profile, and `adopt` where the resource declares it (an old state's
 * `adopt` of a resource that no longer takes it is dropped, not carried on).
 */
function carried(inputs: CommonInputs | undefined, declaration: ResourceDeclaration): CommonInputs {
  const adopt = Object.hasOwn(declaration.inputs, "adopt") ? inputs?.adopt : undefined;
  return compact({ profile: inputs?.profile, adopt });
}

type Props = Record<string, unknown>;

function withoutProvider(props: Record<string, unknown>): Record<string, unknown> {
  const { __provider: _ignored, ...rest } = props;
  return rest;
}

/** A resource's diff, computed once: what the engine is told, what a preview shows, and what an update sends. */
export interface ResourceDiff {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** The API fields whose value changed: an update's mask. */
  changedFields: string[];
  /** Each property that changes, and how (the detailed diff a preview shows line by line). */
  properties: Map<string, PropertyChange>;
}

/**
 * One resource as every front drives it (the dynamic provider, ./lazy-provider's front, and the native plugin): plain
 * properties in and out, errors already in the user's terms, the diff computed once with its per-property detail.
 */
export interface ResourceOperations {
  /**
   * `urn` is the resource's, where the front knows it (the native plugin; the dynamic host does not): the
   * resources that claim bindings (provider/iam/access) name the resources they conflict with by it.
   */
  check(
    olds: Props,
    news: Props,
    urn?: string,
  ): Promise<{ inputs: Props; failures?: pulumi.dynamic.CheckFailure[] }>;
  /** `urn` as for check: where the preview's access lines go. */
  diff(id: string, olds: Props, news: Props, urn?: string): Promise<ResourceDiff>;
  create(inputs: Props): Promise<{ id: string; outs: Props }>;
  /** Empty when the object is gone. `props` is the state; absent for an import or a `get` by id. */
  read(id: string, props?: Props): Promise<{ id?: string; props?: Props; inputs?: Props }>;
  update(id: string, olds: Props, news: Props): Promise<{ outs: Props }>;
  delete(id: string, props: Props): Promise<void>;
}

/** The dynamic provider of a resource: its operations, and configure from the stack's config. */
export function dynamicProvider(resource: ResourceOperations): pulumi.dynamic.ResourceProvider {
  return {
    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
      await configureFromLookup((key) => req.config.get(key));
    },
    // Anything after the inputs (lazy-provider forwards it) is the URN, when a front passes one.
    check: (olds, news, ...rest: unknown[]) => resource.check(olds, news, rest[0] as string | undefined),
    async diff(id, olds, news) {
      // The dynamic host knows no URN: the access lines name the resource by its type and name.
      const { changes, replaces, deleteBeforeReplace } = await resource.diff(id, olds, news);
      return { changes, replaces, deleteBeforeReplace };
    },
    create: (inputs) => resource.create(inputs),
    read: (id, props) => resource.read(id, props),
    update: (id, olds, news) => resource.update(id, olds, news),
    delete: (id, props) => resource.delete(id, props),
  };
}

/** Builds the dynamic provider object for one resource. */
export function defineResourceProvider<I extends CommonInputs, T extends { uid: string }>(
  spec: ResourceDescription<I, T>,
): pulumi.dynamic.ResourceProvider {
  return dynamicProvider(resourceOperations(spec));
}

/** Builds the operations of one resource from its description. */
export function resourceOperations<I extends CommonInputs, T extends { uid: string }>(
  spec: ResourceDescription<I, T>,
): ResourceOperations {
  const attempt = (action: string, inputs: Partial<I> | undefined, uid?: string): Attempt => ({
    action,
    type: spec.declaration.token,
    uid,
    profile: inputs?.profile,
    ...spec.describe(inputs ?? {}),
  });
  /** The one way a method fails: translated, in the user's terms, printed once. */
  const failure = (err: unknown, context: Attempt): Error =>
    withoutHostEcho(translateError(err, context, undefined, termsFor(context.profile)));

  /** How the preview's lines name the resource: by its URN where known, else by its type and name. */
  const labelOf = (inputs: Props, urn: string | undefined): string => {
    const parts = urn?.split("::") ?? [];
    if (parts.length >= 4) return resourceText(spec.declaration.token, parts.slice(3).join("::"));
    const name = spec.describe(inputs as Partial<I>).name ?? (inputs.name as string | undefined);
    return name === undefined ? spec.declaration.token : resourceText(spec.declaration.token, String(name));
  };
  /** Records what the provider wrote in the live facts of its profile (./live-facts): the object, or its removal. */
  const written = (profile: string | undefined, object: T) => {
    const own = spec.ownWrites;
    if (own !== undefined) recordOwnWrite(profile, (facts) => own.written(facts, object));
  };
  const deleted = (profile: string | undefined, uid: string) => {
    const own = spec.ownWrites;
    if (own !== undefined) recordOwnWrite(profile, (facts) => own.deleted(facts, uid));
  };
  /** The access review of a planned change (impact lines, preflight); a refusal is the preflight's, as it is. */
  const review = async (change: PlannedChange, inputs: Props, urn: string | undefined): Promise<void> => {
    if (spec.accessEffect === undefined || containsUnknown(inputs.profile)) return;
    try {
      await reviewChange(
        spec.accessEffect,
        change,
        inputs.profile as string | undefined,
        labelOf(inputs, urn),
        urn,
      );
    } catch (err) {
      if (err instanceof PreflightError) throw err;
      throw failure(err, attempt("plan", inputs as Partial<I>));
    }
  };

  const writeOnly = spec.declaration.writeOnly;
  /**
   * The API never returns a write-only input (an identity provider's clientSecret), so state knows it only from
   * the program: create and update record the program's value, read carries the previous one over (refresh shows
   * no diff for it), and diff compares the new input with the previous one. Both fronts go through here.
   */
  const withWriteOnly = (props: Props, from: Props | undefined): Props => {
    const carriedOver = writeOnly.filter((key) => typeof from?.[key] === "string");
    return carriedOver.length === 0
      ? props
      : { ...props, ...Object.fromEntries(carriedOver.map((key) => [key, from![key]])) };
  };
  /** Old state for the diff: a write-only input nobody recorded (an import) takes the program's value. */
  const withWriteOnlyOf = (olds: Props, news: I): Props => {
    const missing = writeOnly.filter((key) => olds[key] === undefined);
    return missing.length === 0
      ? olds
      : { ...olds, ...Object.fromEntries(missing.map((key) => [key, (news as Props)[key]])) };
  };

  const outputs = (object: T, common: CommonInputs): Record<string, unknown> =>
    compact({ ...spec.inputsOf(object), ...carried(common, spec.declaration), ...spec.outputsOf(object) });

  const applyUpdate = async (client: PlatformClient, uid: string, live: T, inputs: I): Promise<T> => {
    if (!spec.update) return live;
    const liveInputs = spec.inputsOf(live) as Record<string, unknown>;
    const drift = diffFields(liveInputs, inputs as Record<string, unknown>, spec.declaration.fields);
    if (drift.changedFields.length === 0) return live;
    return spec.update(client, uid, inputs, drift.changedFields);
  };

  return {
    async check(olds: Props, news_: Props, urn?: string) {
      const news = news_ as I;
      // A write-only input that an existing object's state never had a value for (it was imported: absent, or
      // the "" that `pulumi import` prints for what it cannot read and that the next up records) may stay absent
      // or "": the service keeps the value it has. It is required when the program creates the object.
      const existing = Object.keys(olds ?? {}).length > 0;
      const neverGiven = (value: unknown) => value === undefined || value === "";
      const unrecorded = writeOnly.filter(
        (key) => existing && neverGiven((olds as Props)[key]) && neverGiven((news as Props)[key]),
      );
      const failures = checkInputs(spec.declaration.inputSchema, news_).filter(
        (f) => !unrecorded.includes(f.property),
      );
      if (failures.length > 0) return { inputs: news_, failures };
      // A program that manages resources needs an API to send them to: say so at preview, not halfway into up.
      if (!containsUnknown(news.profile)) {
        try {
          clientFor(news.profile);
        } catch (err) {
          throw failure(err, attempt("plan", news));
        }
      }
      // A create: what it grants, and whether the provider's identity may make it (an update's: in diff).
      if (!existing) {
        try {
          await review({ kind: "create", news: news_ }, news_, urn);
        } catch (err) {
          if (!(err instanceof PreflightError)) throw err;
          return { inputs: news_, failures: err.refusals.map((reason) => ({ property: "", reason })) };
        }
      }
      return { inputs: news_ };
    },

    async diff(id: string, olds_: Props, news: Props, urn?: string): Promise<ResourceDiff> {
      const olds = withWriteOnlyOf(olds_, news as I);
      // The engine diffs every resource of the stack at preview: what its state names it, the lines may use.
      const names = spec.ownWrites?.names;
      if (names !== undefined && !containsUnknown(news.profile))
        noteName(news.profile as string | undefined, names, olds.uid ?? id, olds.name);
      const fields = diffFields(olds, news, spec.declaration.fields);
      const replaces = [...new Set([...fields.replaces, ...(spec.alsoReplaces?.(olds, news) ?? [])])];
      const diff = { ...fields, changes: fields.changes || replaces.length > 0, replaces };
      if (replaces.length > 0) await review({ kind: "replace", uid: id, olds, news }, news, urn);
      else if (fields.changedFields.length > 0)
        await review({ kind: "update", uid: id, olds, news, changed: fields.changedFields }, news, urn);
      return {
        changes: diff.changes,
        replaces,
        deleteBeforeReplace: deleteBeforeReplace(spec.uniqueBy, replaces, fields.changedFields),
        changedFields: fields.changedFields,
        properties: propertyChanges(olds, news, spec.declaration.fields, diff),
      };
    },

    async create(inputs_: Props) {
      const inputs = inputs_ as I;
      try {
        const client = clientFor(inputs.profile);
        const outcome = await createOrAdopt(
          { create: () => spec.create(client, inputs), lookup: () => spec.lookup(client, inputs) },
          inputs.adopt === true,
        );
        // An adopted or recovered object is brought in line with the program in the same step.
        const object =
          outcome.how === "created"
            ? outcome.object
            : await applyUpdate(client, outcome.object.uid, outcome.object, inputs);
        written(inputs.profile, object);
        return { id: object.uid, outs: withWriteOnly(outputs(object, inputs), inputs as Props) };
      } catch (err) {
        throw failure(err, attempt("create", inputs));
      }
    },

    async read(id: string, props?: Props) {
      const common = props as CommonInputs | undefined;
      try {
        const object = await spec.get(clientFor(common?.profile), id);
        return {
          id: object.uid,
          props: withWriteOnly(outputs(object, common ?? {}), props),
          inputs: withWriteOnly(
            compact({ ...spec.inputsOf(object), ...carried(common, spec.declaration) }),
            props,
          ),
        };
      } catch (err) {
        // Gone: no id, so refresh drops it from state and the next `up` creates it again.
        if (NotFoundError.isInstance(err)) return {};
        throw failure(err, attempt("read", common as Partial<I> | undefined, id));
      }
    },

    async update(id: string, olds: Props, news_: Props) {
      const news = news_ as I;
      const result = diffFields(olds, news_, spec.declaration.fields);
      if (result.changedFields.length === 0 || !spec.update) {
        // Only the profile changed: nothing to send, record the new inputs.
        return {
          outs: compact({
            ...withoutProvider(olds),
            profile: undefined,
            adopt: undefined,
            ...carried(news, spec.declaration),
          }),
        };
      }
      try {
        const object = await spec.update(clientFor(news.profile), id, news, result.changedFields);
        written(news.profile, object);
        return { outs: withWriteOnly(outputs(object, news), news as Props) };
      } catch (err) {
        throw failure(err, attempt("update", news, id));
      }
    },

    async delete(id: string, props: Props) {
      const common = props as CommonInputs;
      let client: PlatformClient | undefined;
      try {
        client = clientFor(common.profile);
        await spec.delete(client, id);
        deleted(common.profile, id);
      } catch (err) {
        if (NotFoundError.isInstance(err)) {
          deleted(common.profile, id);
          return; // already gone is what we wanted
        }
        const context = attempt("delete", props as Partial<I>, id);
        if (FailedPreconditionError.isInstance(err) && spec.describeBlockers && client) {
          // Best effort: the refusal stands whether or not the listing works.
          const blockers = await spec.describeBlockers(client, id).catch(() => []);
          if (blockers.length > 0) context.found = said`Still in it: ${joinWords(blockers)}`;
        }
        throw failure(err, context);
      }
    },
  };
}
