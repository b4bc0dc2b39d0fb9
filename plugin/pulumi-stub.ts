/**
 * What `@pulumi/pulumi` is inside the plugin's bundle (scripts/build-plugin.js aliases it here). The shared data
 * sources import it for the program side only: their Output forms (`pulumi.output`) and the program's config
 * (`pulumi.runtime.getConfig`, unused once the plugin sets program-client's settings source). Bundling the real
 * SDK would add ~17 MB and a second of start-up to every plugin process for code the plugin never runs; if it
 * ever does, this says so instead of failing obscurely.
 *
 * The generated gRPC stubs (`@pulumi/pulumi/proto/*`) are bundled for real: only the bare package is replaced.
 */
function notInThePlugin(what: string): never {
  throw new Error(`${what} is part of a Pulumi program, not of the pulumi-resource-platform plugin`);
}

export const runtime = {
  getConfig: (key: string): never => notInThePlugin(`pulumi.runtime.getConfig(${JSON.stringify(key)})`),
};

export function output(): never {
  return notInThePlugin("pulumi.output");
}
