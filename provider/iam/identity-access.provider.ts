/**
 * The dynamic provider of platform.iam.IdentityAccess, as the program hands it to Pulumi: exported as the WHOLE module, so
 * the stack stores a one-line `require()` of the installed package, and loading its implementation
 * (./identity-access.implementation, with zod, the SDK and undici) waits for the first call, in the provider process.
 *
 * May import: ../core/lazy-provider.
 */
import { lazyProvider } from "../core/lazy-provider";

export = lazyProvider(
  __filename,
  () => require("./identity-access.implementation") as typeof import("./identity-access.implementation"),
);
