/**
 * Helpers for the resource classes (program side). A class says only which resource it is: its Args and output
 * types and the properties it registers come from the declaration, through ../types.generated.
 */
import * as pulumi from "@pulumi/pulumi";
import { providerReference } from "./lazy-provider";
import { RESOURCE_PROPERTIES } from "../types.generated";

/** A resolved value as a program may give it: every level may be an Output or a promise. */
export type InputOf<T> = T extends (infer U)[]
  ? pulumi.Input<InputOf<U>[]>
  : T extends object
    ? pulumi.Input<{ [K in keyof T]: InputOf<T[K]> }>
    : pulumi.Input<T>;

/** A class's Args from the resource's resolved inputs (docs carried over property by property). */
export type ArgsOf<T> = { [K in keyof T]: InputOf<T[K]> };

/** A class's output properties from the resource's state. */
export type OutputsOf<T> = { readonly [K in keyof T]-?: pulumi.Output<T[K]> };

/**
 * The arguments of `pulumi.CustomResource`'s constructor for one of this package's resources: its dynamic type, the
 * program's args with every output key (see withOutputKeys) and the provider, and the options with the resource's
 * secret outputs added. A secret input is wrapped with pulumi.secret even when the program gave it in plain.
 */
export function dynamicResource(
  resource: keyof typeof RESOURCE_PROPERTIES,
  name: string,
  provider: pulumi.dynamic.ResourceProvider,
  args: object,
  opts: pulumi.CustomResourceOptions | undefined,
): [string, string, pulumi.Inputs, pulumi.CustomResourceOptions] {
  const { type, outputs, secrets } = RESOURCE_PROPERTIES[resource];
  const props = withOutputKeys(args, outputs);
  for (const key of secrets) if (props[key] !== undefined) props[key] = pulumi.secret(props[key]);
  const options =
    secrets.length === 0
      ? (opts ?? {})
      : {
          ...opts,
          additionalSecretOutputs: [...new Set([...(opts?.additionalSecretOutputs ?? []), ...secrets])],
        };
  const [module, typeName] = type.split(":") as [string, string];
  return [dynamicType(module, typeName), name, dynamicProps(provider, props), options];
}

/**
 * Every output must be a key of the props handed to the engine, or the class's output stays undefined:
 * missing keys are added as undefined.
 */
export function withOutputKeys(args: object, keys: readonly string[]): Record<string, unknown> {
  const props: Record<string, unknown> = { ...args };
  for (const key of keys) if (!(key in props)) props[key] = undefined;
  return props;
}

/**
 * A resource's uid, taken from its id (every provider returns the uid as the id), never from an output property.
 *
 * Why: during a preview the engine hands a resource that is being UPDATED its new inputs as outputs (the
 * dynamic-provider host does not run previews), so an output-only property such as `uid` is unknown, and every
 * resource referring to it would preview a replacement that `up` never makes. The id, on the other hand, is known
 * in a preview for every resource that exists and is not being replaced, and unknown exactly when the resource is
 * created or replaced, which is when a new uid is coming. So a dependent previews a replacement only when what it
 * refers to is really replaced: the preview tells the truth for every resource kind and every reference at once.
 */
export function uidOf(resource: pulumi.CustomResource): pulumi.Output<string> {
  return resource.id as pulumi.Output<string>;
}

const serialized = new WeakMap<object, pulumi.Input<string>>();

/**
 * The props of a dynamic resource: `args` plus the provider under `__provider`, the form `pulumi.dynamic.Resource`
 * stores: a short `require()` of the installed provider module (see providerReference), or, for a provider that
 * is not installed under node_modules, its serialized code. Computed once per provider object.
 *
 * Why the classes do not extend `pulumi.dynamic.Resource`: the Node SDK records as a resource's source position the
 * frame a fixed number of constructors below its own, which for a subclass of `dynamic.Resource` is the class's
 * constructor in this package. Extending `CustomResource` directly puts the user's line there.
 */
export function dynamicProps(
  provider: pulumi.dynamic.ResourceProvider,
  args: Record<string, unknown>,
): Record<string, unknown> {
  let text = serialized.get(provider);
  if (text === undefined) {
    text =
      providerReference(provider) ??
      pulumi.output(
        pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true }).then((sf) => sf.text),
      );
    serialized.set(provider, text);
  }
  return { ...args, __provider: text };
}

/** The type token the engine routes to the dynamic-provider host, e.g. `pulumi-nodejs:dynamic/iam:Group`. */
export function dynamicType(module: string, type: string): string {
  return `pulumi-nodejs:dynamic/${module}:${type}`;
}
