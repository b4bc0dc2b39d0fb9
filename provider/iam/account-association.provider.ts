/**
 * The dynamic provider of platform.iam.AccountAssociation, as the program hands it to Pulumi: exported as the WHOLE module, so
 * the stack stores a one-line `require()` of the installed package, and loading its implementation
 * (./account-association.implementation, with zod, the SDK and undici) waits for the first call, in the provider process.
 *
 * May import: ../core/lazy-provider.
 */
import { lazyProvider } from "../core/lazy-provider";

export = lazyProvider(
  __filename,
  () =>
    require("./account-association.implementation") as typeof import("./account-association.implementation"),
);
