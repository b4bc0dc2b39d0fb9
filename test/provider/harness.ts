/**
 * Shared setup for provider tests: an in-process emulator, the provider process's config pointed at it,
 * and helpers to read the emulator's request log.
 */
import * as pulumi from "@pulumi/pulumi";
import { startEmulator, type Emulator, type LoggedRequest } from "../../emulator";
import { closeClients, configureFromLookup } from "../../provider/core/client";
import { useStarted } from "../lifecycle";

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

/**
 * Starts a harness before the calling file's (or describe block's) tests and closes it after; the emulator is reset
 * before each test, then `beforeEach` runs (e.g. the access resources' `resetClaims`). The object returned stands for
 * the harness started: read it inside hooks and tests, not at collection time.
 */
export function useHarness(beforeEachTest?: () => void): Harness {
  const current = useStarted(
    "useHarness",
    startHarness,
    (h) => h.close(),
    (h) => {
      h.emulator.reset();
      beforeEachTest?.();
    },
  );
  return {
    get emulator() {
      return current().emulator;
    },
    requestsSinceMark: () => current().requestsSinceMark(),
    mark: () => current().mark(),
    close: () => current().close(),
  };
}

/**
 * For data sources' tests: an emulator started before the calling file's tests (`use` receives it then) and closed
 * after, reset before each test and named in the program's config (setProgramConfig).
 */
export function useProgramEmulator(use: (emulator: Emulator) => void): void {
  const start = async () => {
    const emulator = await startEmulator();
    use(emulator);
    return emulator;
  };
  useStarted(
    "useProgramEmulator",
    start,
    (emulator) => emulator.close(),
    (emulator) => {
      emulator.reset();
      setProgramConfig(emulator);
    },
  );
}

/**
 * Data sources run in the program and read its config: point it at the emulator, with the token marked
 * secret as `pulumi config set --secret` would.
 */
export function setProgramConfig(emulator: Emulator): void {
  pulumi.runtime.setAllConfig({ "platform:apiUrl": emulator.url, "platform:token": emulator.token }, [
    "platform:token",
  ]);
}

/** The GETs of `path` the emulator saw after request number `mark` (a `requestLog().length` taken before). */
export function getsSince(emulator: Emulator, mark: number, path: string): LoggedRequest[] {
  return emulator
    .requestLog()
    .slice(mark)
    .filter((r) => r.method === "GET" && r.path === path);
}
