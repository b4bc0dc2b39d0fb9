/**
 * The one place a resource or data source is described. A resource declares each field once (its zod type, its
 * doc, and its flags: secret, write-only, replace on change, default) and the resource once (type token, stem,
 * summary, how it is imported); its page of prose and examples is `<stem>.md` beside it. Everything else is derived
 * from these, here or by the generators:
 *
 *   - the input and output zod schemas that `check` validates with (doc sentences attached with .describe);
 *   - the fields the shared diff compares (./diff FieldSpec), the secret and write-only lists both fronts use;
 *   - schema.json (../schema.ts), the classes' argument and output types and output keys (scripts/generate-types.js
 *     writes them into ../types.ts), the plugin's tables (plugin/resources.ts) and the README's reference
 *     (scripts/generate-docs.js).
 *
 * Field order matters and is the declaration's: it is the order of schema.json's properties and of the docs.
 */
import { z } from "zod";
import { ADOPT_DOC, CommonInputSchema } from "./common-schema";
import type { FieldKind, FieldSpec } from "./diff";

/** Flags of one input field. */
export interface InputFieldOptions {
  /** The doc sentence(s): schema.json, every SDK, the classes and the docs show exactly this. */
  doc: string;
  /** A change replaces the object (the API cannot change it in place). */
  replaces?: boolean;
  /** Always kept secret, in state and in the program, even when given in plain. */
  secret?: boolean;
  /** Sent to the API but never returned by it: state knows it only from the program. */
  writeOnly?: boolean;
  /** Sent in the request's path (the parent's uid), never in a body: the default wire mapping leaves it out. */
  inPath?: boolean;
  /**
   * What the object reports when the program leaves the field unset (read always gives a value): the docs say it,
   * and the classes type the output as always present.
   */
  default?: string | boolean | readonly string[];
  /** How the diff compares values; by default from the type (a list is a set, an object or map is an object). */
  compare?: FieldKind;
}

export interface InputField<S extends z.ZodType = z.ZodType> extends InputFieldOptions {
  schema: S;
}

/** An input field: its zod type (validation, and the property's type everywhere) and its flags. */
export function input<S extends z.ZodType>(schema: S, options: InputFieldOptions): InputField<S> {
  return { schema, ...options };
}

export interface OutputField<S extends z.ZodType = z.ZodType> {
  schema: S;
  doc: string;
  /** Always kept secret (a one-time credential the service returns). */
  secret?: boolean;
}

/** A property only the service sets. */
export function output<S extends z.ZodType>(
  schema: S,
  doc: string,
  options: { secret?: boolean } = {},
): OutputField<S> {
  return { schema, doc, ...options };
}

type Unwrapped<S> = S extends z.ZodOptional<infer T> ? T : S;

/** One member of a nested input block derived from its wire shape (nestedInput). */
export interface NestedMember<S extends z.ZodType> {
  /** The doc sentence(s) schema.json, every SDK and the docs show. */
  doc: string;
  /** A stricter rule than the wire's, built on the wire member (unwrapped from optional); same value type. */
  rule?: (wire: Unwrapped<S>) => z.ZodType<z.output<Unwrapped<S>>>;
  /** Required here (the wire has every member optional). */
  required?: boolean;
}

/**
 * A nested input block (an identity's claimMatch, ...) derived from the generated wire shape it is sent as
 * (../../sdk/schemas): its members and their types are the wire's, optional unless `required`; the declaration
 * gives each one's doc and any stricter rule, in the order it shows them. Every wire member needs a doc, so a member the OpenAPI adds does not
 * compile until it is declared, and a member the wire does not have cannot be declared.
 */
export function nestedInput<S extends Record<string, z.ZodType>>(
  wire: z.ZodObject<S>,
  members: { [K in keyof S]: NestedMember<S[K]> },
): z.ZodObject<{ [K in keyof S]: z.ZodType<z.output<S[K]>> }> {
  // In the declaration's order (the order schema.json and the docs show); the keys are exactly the wire's.
  const shape = Object.fromEntries(
    Object.keys(members).map((key) => {
      const member = wire.shape[key] as z.ZodType;
      const spec = members[key as keyof S] as unknown as NestedMember<z.ZodType>;
      const base = (member instanceof z.ZodOptional ? member.unwrap() : member) as z.ZodType;
      const ruled = spec.rule === undefined ? base : spec.rule(base as never);
      return [key, (spec.required === true ? ruled : ruled.optional()).describe(spec.doc)];
    }),
  );
  return z.object(shape) as unknown as z.ZodObject<{ [K in keyof S]: z.ZodType<z.output<S[K]>> }>;
}

/** Inputs every resource takes that are never sent to the API (a declaration may override their doc or rule). */
export const COMMON_INPUTS = ["profile"] as const;

/**
 * Inputs of the provider, never sent to the API: the common ones, and `adopt`, which only the resources whose
 * create can find an existing object declare (`adoptInput`): an input that does nothing is declared nowhere.
 */
export const PROVIDER_INPUTS = [...COMMON_INPUTS, "adopt"] as const;

/** `adopt`: create takes over the existing object the resource's lookup finds, then updates it to match. */
export function adoptInput(doc: string = ADOPT_DOC): InputField<z.ZodOptional<z.ZodBoolean>> {
  return input(z.boolean().optional(), { doc });
}

type InputFields = Record<string, InputField>;
type OutputFields = Record<string, OutputField>;
type Shape<F extends Record<string, { schema: z.ZodType }>> = { [K in keyof F]: F[K]["schema"] };

/** What a declaration module writes (the argument of declareResource); see ./README.md for the names. */
export interface ResourceSpec<I extends InputFields, O extends OutputFields> {
  /** The schema's type token, e.g. "platform:iam:Identity" (module iam, class Identity). */
  token: string;
  /** The file stem in every layer, e.g. "identity" (sdk/resources, provider/iam, emulator/routes, tests). */
  stem: string;
  /** What the resource is, in one or two sentences. */
  summary: string;
  /** What `pulumi import` takes as the id. */
  importId: string;
  /** The API fields in the order they are shown; `profile` and `adopt` may be given to override the common ones. */
  inputs: I;
  /** The properties only the service sets; `uid` is the resource's id. */
  outputs: O;
  /** Rules across fields (exactly one of, neither both), added to the input schema. */
  refine?: (inputs: z.infer<z.ZodObject<Shape<I>>>, ctx: z.RefinementCtx) => void;
}

/** A resource as every layer sees it. */
export interface ResourceDeclaration<
  I extends InputFields = InputFields,
  O extends OutputFields = OutputFields,
> extends Omit<ResourceSpec<I, O>, "refine"> {
  /** "iam" */
  module: string;
  /** "Identity" */
  name: string;
  /** The zod schema `check` validates with: the API fields, then profile and adopt, then the cross-field rules. */
  inputSchema: z.ZodType<z.infer<z.ZodObject<Shape<I> & typeof CommonInputSchema.shape>>>;
  outputSchema: z.ZodObject<Shape<O>>;
  /** The fields the shared diff compares, updatable ones first, then the ones that replace. */
  fields: readonly FieldSpec[];
  /** Properties kept secret in inputs and outputs. */
  secrets: readonly string[];
  /** Inputs the API never returns. */
  writeOnly: readonly string[];
  /** The API's input fields (not profile or adopt), in declaration order. */
  apiInputs: readonly string[];
  /** The API inputs a create or update body carries by default (not the ones sent in the path), in order. */
  bodyInputs: readonly string[];
  /** Every property of the resource's state: the API inputs, then the outputs. */
  properties: readonly string[];
  /** Properties the program never sets. */
  outputOnly: readonly string[];
}

function compareOf(field: InputField): FieldKind {
  if (field.compare !== undefined) return field.compare;
  let schema: z.ZodType = field.schema;
  while (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault)
    schema = schema.unwrap() as z.ZodType;
  if (schema instanceof z.ZodArray) return "stringSet";
  if (schema instanceof z.ZodObject || schema instanceof z.ZodRecord) return "object";
  return "string";
}

export function declareResource<I extends InputFields, O extends OutputFields>(
  spec: ResourceSpec<I, O>,
): ResourceDeclaration<I, O> {
  const [, module, name] = spec.token.split(":") as [string, string, string];
  const shape = (fields: Record<string, { schema: z.ZodType; doc: string }>) =>
    Object.fromEntries(Object.entries(fields).map(([key, f]) => [key, f.schema.describe(f.doc)]));
  const apiInputs = Object.keys(spec.inputs).filter(
    (key) => !(PROVIDER_INPUTS as readonly string[]).includes(key),
  );
  const api = Object.fromEntries(apiInputs.map((key) => [key, spec.inputs[key]!]));
  const declared = (key: string) => spec.inputs[key]?.schema.describe(spec.inputs[key]!.doc);
  const common = Object.fromEntries([
    ...COMMON_INPUTS.map((key) => [key, declared(key) ?? CommonInputSchema.shape[key]]),
    ...(Object.hasOwn(spec.inputs, "adopt") ? [["adopt", declared("adopt")!]] : []),
  ]);
  let inputSchema: z.ZodType = z.object({ ...shape(api), ...common });
  if (spec.refine) inputSchema = (inputSchema as z.ZodObject).superRefine(spec.refine as never);

  const fieldSpec = (key: string): FieldSpec => {
    const field = spec.inputs[key]!;
    return {
      key,
      kind: compareOf(field),
      ...(field.replaces ? { replaces: true } : {}),
    };
  };
  const outputKeys = Object.keys(spec.outputs);
  const properties = [...new Set([...apiInputs, ...outputKeys])];
  const { refine: _refine, ...described } = spec;
  return {
    ...described,
    module,
    name,
    inputSchema: inputSchema as ResourceDeclaration<I, O>["inputSchema"],
    outputSchema: z.object(shape(spec.outputs)) as unknown as z.ZodObject<Shape<O>>,
    fields: [
      ...apiInputs.filter((key) => !spec.inputs[key]!.replaces),
      ...apiInputs.filter((key) => spec.inputs[key]!.replaces),
    ].map(fieldSpec),
    secrets: properties.filter(
      (key) => spec.inputs[key]?.secret === true || spec.outputs[key]?.secret === true,
    ),
    writeOnly: apiInputs.filter((key) => spec.inputs[key]!.writeOnly === true),
    apiInputs,
    bodyInputs: apiInputs.filter((key) => spec.inputs[key]!.inPath !== true),
    properties,
    outputOnly: outputKeys.filter((key) => !apiInputs.includes(key)),
  };
}

/** What a data source module writes. */
export interface DataSourceDeclaration {
  /** e.g. "platform:iam:getRole". */
  token: string;
  summary: string;
  args: z.ZodType;
  result: z.ZodType;
  /** The function a program calls (and the plugin's Invoke). */
  invoke: (args: Record<string, unknown>) => Promise<unknown>;
}

export function declareDataSource(spec: DataSourceDeclaration): DataSourceDeclaration {
  return spec;
}
