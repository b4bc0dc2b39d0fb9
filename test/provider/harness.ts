/**
 * Shared setup for provider tests: an in-process emulator, the provider process's config pointed at it,
 * and helpers to read the emulator's request log.
 */
import { startEmulator, type Emulator, type LoggedRequest } from "../../emulator";
import { closeClients, configureFromLookup } from "../../provider/core/client";

export interface Harness {
  emulator: Emulator;
  /** Requests the emulator saw since the last `mark()`, control endpoints excluded. */
  requestsSinceMark(): LoggedRequest[];
  mark(): void;
  close(): Promise<void>;
}

/** What the engine passes to `configure`: the stack's config, as a lookup. */
export function configOf(values: Record<string, string>): {
  config: { get(k: string): string | undefined; require(k: string): string };
} {
  return {
    config: {
      get: (key) => values[key],
      require: (key) => {
        const v = values[key];
        if (v === undefined) throw new Error(`missing ${key}`);
        return v;
      },
    },
  };
}

export async function startHarness(): Promise<Harness> {
  const emulator = await startEmulator();
  await configureFromLookup(
    (key) => ({ "platform:apiUrl": emulator.url, "platform:token": emulator.token })[key],
  );
  let offset = 0;
  const apiOnly = (r: LoggedRequest) => !r.path.startsWith("/__") && !r.path.startsWith("/_emulator");
  return {
    emulator,
    mark: () => {
      offset = emulator.requestLog().length;
    },
    requestsSinceMark: () => emulator.requestLog().slice(offset).filter(apiOnly),
    close: async () => {
      await closeClients();
      await emulator.close();
    },
  };
}
