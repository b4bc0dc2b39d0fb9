/**
 * The dynamic provider object a resource class hands to Pulumi, and the short reference to it that the stack stores.
 *
 * Why lazy: every resource class needs its provider object at construction (Pulumi stores a reference to it), but
 * only the provider process ever calls it. Loading the implementation there, on the first call, keeps zod, the SDK
 * and undici out of the program process: a program that only declares resources loads a few small modules.
 */
import type * as pulumi from "@pulumi/pulumi";

/** What a `<stem>.implementation` module exports. */
export interface ProviderImplementation {
  provider: pulumi.dynamic.ResourceProvider;
}

const moduleFiles = new WeakMap<object, string>();

/**
 * A provider whose methods load `load().provider` on their first call. `filename` is the module that exports it
 * (`__filename`), from which `providerReference` derives what the stack stores.
 */
export function lazyProvider(
  filename: string,
  load: () => ProviderImplementation,
): pulumi.dynamic.ResourceProvider {
  let loaded: pulumi.dynamic.ResourceProvider | undefined;
  const real = (): pulumi.dynamic.ResourceProvider => (loaded ??= load().provider);
  // Every method is present (the dynamic-provider host skips absent ones) and every implementation has them all.
  const front: Required<pulumi.dynamic.ResourceProvider> = {
    configure: (req) => real().configure!(req),
    // Anything after the inputs (the native plugin's URN, see provider/iam/access) goes along.
    check: (olds, news, ...rest: unknown[]) =>
      (
        real().check as (
          ...args: unknown[]
        ) => ReturnType<NonNullable<pulumi.dynamic.ResourceProvider["check"]>>
      )(olds, news, ...rest),
    diff: (id, olds, news) => real().diff!(id, olds, news),
    create: (inputs) => real().create(inputs),
    read: (id, props) => real().read!(id, props),
    update: (id, olds, news) => real().update!(id, olds, news),
    delete: (id, props) => real().delete!(id, props),
  };
  moduleFiles.set(front, filename);
  return front;
}

/**
 * What the dynamic-provider host evaluates to get the provider back (`exports.handler()`, through
 * require-from-string, resolving from the program's directory): a `require()` of the provider module by its path
 * inside the last `node_modules/` of its file, e.g. `pulumi-platform/dist/provider/iam/group.provider.js`. This
 * is the reference `pulumi.runtime.serializeFunction` makes for a module under node_modules, without its ~200
 * bytes of wrapper (stored once per resource) and without running the closure serializer in the program.
 *
 * Undefined when the module does not sit under a node_modules directory (a checkout, a test): the caller then
 * serializes the provider the usual way.
 */
export function providerReference(provider: object): string | undefined {
  const file = moduleFiles.get(provider)?.split("\\").join("/");
  const at = file?.lastIndexOf("/node_modules/") ?? -1;
  if (file === undefined || at < 0) return undefined;
  const modulePath = file.slice(at + "/node_modules/".length);
  return `exports.handler = () => require(${JSON.stringify(modulePath)});\n`;
}
