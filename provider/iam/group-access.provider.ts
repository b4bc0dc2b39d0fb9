/**
 * The dynamic provider of platform.iam.GroupAccess, as the program hands it to Pulumi: exported as the WHOLE module, so
 * the stack stores a one-line `require()` of the installed package, and loading its implementation
 * (./group-access.implementation, with zod, the SDK and undici) waits for the first call, in the provider process.
 *
 * May import: ../core/lazy-provider.
 */
import { lazyProvider } from "../core/lazy-provider";

export = lazyProvider(
  __filename,
  () => require("./group-access.implementation") as typeof import("./group-access.implementation"),
);
