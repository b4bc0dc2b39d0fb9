/**
 * A faithful local emulator of the Platform Management API v2beta1, as a library:
 *
 *   const emulator = await startEmulator();
 *   await fetch(`${emulator.url}/iam/v2beta1/groups`, { headers: { authorization: `Bearer ${emulator.token}` } });
 *   await emulator.close();
 *
 * The CLI (./cli.ts) is a thin wrapper around `startEmulator`. See emulator/README.md for behaviour,
 * the seed format and the control endpoints.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createClock } from "./clock";
import { MAX_REQUEST_BYTES, createDispatcher } from "./dispatch";
import { Faults, validateFaultRule, type FaultRule, type ListedFault } from "./faults";
import { OidcIssuer, type MintOptions } from "./oidc";
import type { Control } from "./routes/control";
import { routeTable } from "./routes/table";
import { createGrpcFace, shareListener } from "./grpc/server";
import { RequestLog } from "./request-log";
import { buildServer } from "./server";
import { Service, type LoggedRequest, type SeedCounts } from "./service";
import { KINDS, MemoryStore, type Kind, type StoredObject } from "./store";

export type { LoggedRequest, SeedCounts } from "./service";

/** The request log keeps this many of the latest API requests (docs/emulator.md). */
const REQUEST_LOG_CAPACITY = 10_000;
export type { FaultRule, FaultAction, ListedFault } from "./faults";
export type { Kind, StoredObject } from "./store";
export type { MintOptions } from "./oidc";
export { BUILTIN_ROLES } from "./access";

export interface EmulatorOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * Persist every change to this file (a JSON snapshot, plus `<file>.journal` while running) and reload it on
   * start. Default: memory only.
   */
  dataFile?: string;
  /**
   * With `dataFile`: wait for the disk (fdatasync) before answering each write, so an operating-system crash or
   * a power cut loses no acknowledged write either (a killed process never does). Costs one disk flush per write.
   * Default false.
   */
  dataSync?: boolean;
  /** Seed data (see README) as an object or a path to a JSON file; applied on a fresh start and after reset. */
  seed?: unknown;
  /** One line per request (method, path, status, ms); never the Authorization header. Default: silent. */
  logger?: (line: string) => void;
  /** Start time of the emulator clock. Default: now. */
  clockStart?: Date | string | number;
  /** Seed of the fault-injection PRNG. Default 1. */
  faultSeed?: number;
  /**
   * Propagation delay, in ms on the emulator clock: a group, role or role binding created through the API is not
   * effective for authorization until this long after its creation (requests that depend on it get 404 or 403,
   * as on the real service). Default 0: effective at once.
   */
  propagationDelayMs?: number;
  /** How long an exchanged token lives, in ms on the emulator clock. Default 3600000 (one hour, as the spec says). */
  tokenLifetimeMs?: number;
}

/** A non-negative integer option, or a RangeError naming it. */
function msOption(value: number | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < min)
    throw new RangeError(`${name} must be an integer >= ${min} (ms), got ${String(value)}`);
  return value;
}

export interface Emulator {
  /** Base URL, e.g. http://127.0.0.1:43121 (no trailing slash). */
  readonly url: string;
  /** Token exchange lives on the same host. */
  readonly authUrl: string;
  /** Bootstrap token of the owner of `orgUid` (a root-level user): a JWT, like every API token. */
  readonly token: string;
  /** uid of the organization "demo-org". */
  readonly orgUid: string;
  /** uid of the bootstrap user identity. */
  readonly userUid: string;
  /** A PlatformClient for `url` and `token` (loaded lazily from ../sdk). */
  readonly client: import("../sdk").PlatformClient;
  readonly clock: { now(): Date; advance(ms: number): void };
  /** Drops all data and recreates the bootstrap user and organization (same uids and token), then re-seeds. */
  reset(): void;
  seed(data: unknown): SeedCounts;
  requestLog(): LoggedRequest[];
  clearRequestLog(): void;
  /**
   * A copy of every stored object, by kind, in uid order: what a test compares before and after a request to
   * prove it changed nothing (or exactly what it should). Changing the copy changes nothing stored.
   */
  snapshot(): Record<Kind, StoredObject[]>;
  /** Fault rules; `list` shows each with how often it fired and whether it is spent. */
  faults: { add(rule: FaultRule): void; clear(): void; list(): ListedFault[] };
  mintIdToken(options: MintOptions): Promise<string>;
  /** Another root-level user identity with its own token, a JWT (for access tests). */
  createUser(name?: string): { uid: string; token: string };
  close(): Promise<void>;
}

function loadSeed(seed: unknown): unknown {
  if (typeof seed === "string") return JSON.parse(readFileSync(seed, "utf8"));
  return seed;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const store = new MemoryStore(options.dataFile, { sync: options.dataSync === true });
  // A data file's saved clock wins over clockStart: the state (and its time) survives a restart whole.
  const clock = createClock(options.clockStart, store.meta.clock);
  const issuer = await OidcIssuer.create(store, clock);
  const svc = new Service(store, clock, issuer);
  svc.access.propagationDelayMs = msOption(options.propagationDelayMs, "propagationDelayMs", 0) ?? 0;
  svc.exchangedTokenLifetimeMs =
    msOption(options.tokenLifetimeMs, "tokenLifetimeMs", 1000) ?? svc.exchangedTokenLifetimeMs;
  const seedData = options.seed === undefined ? undefined : loadSeed(options.seed);
  const faults = new Faults(options.faultSeed ?? 1);
  const log = new RequestLog<LoggedRequest>(REQUEST_LOG_CAPACITY);

  // Known once listening: the bootstrap token's `iss` and `aud` name this emulator's URL.
  let identity = { identityUid: "", orgUid: "", token: "" };

  // Every control action is all or nothing (store.transaction): a seed that fails halfway leaves no entries.
  const control: Control = {
    reset: () => {
      store.transaction(() => {
        store.clear();
        svc.bootstrap(identity);
        if (seedData !== undefined) svc.seed(seedData);
      });
      faults.clear();
      log.clear();
    },
    seed: (data) => store.transaction(() => svc.seed(data)),
    mintIdToken: (mint) => issuer.mint(mint),
    advance: (ms) => {
      clock.advance(ms);
      store.markChanged();
    },
    requestLog: () => log.entries(),
    clearRequestLog: () => log.clear(),
    addFaults: (rules) => rules.forEach((r) => faults.add(r)),
    clearFaults: () => faults.clear(),
    listFaults: () => faults.list(),
    validate: (rule) => void validateFaultRule(rule),
    createUser: (name) =>
      store.transaction(() => {
        const { identity: user, token } = svc.createUser(name);
        return { uid: user.uid, token };
      }),
  };

  let url = "";
  const onRequestLogged = (entry: LoggedRequest): void => log.add(entry);
  const dispatcher = createDispatcher({
    svc,
    faults,
    url: () => url,
    onRequestLogged,
    ...(options.logger !== undefined ? { logLine: options.logger, onUnexpectedError: options.logger } : {}),
  });
  const table = routeTable(control);
  const app = buildServer({ dispatcher, routes: table, url: () => url });
  // The gRPC face answers on the same port: a connection that opens with the HTTP/2 preface is its.
  const grpcFace = createGrpcFace({ routes: table, dispatcher, maxMessageBytes: MAX_REQUEST_BYTES });
  const sharedListener = shareListener(app.server, grpcFace);
  await app.listen({ port: options.port ?? 0, host: options.host ?? "127.0.0.1" });
  const address = app.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  url = `http://${host}:${address.port}`;
  issuer.url = url;
  svc.tokens.issuer = url;
  if (store.meta.orgUid === undefined || store.meta.bootstrapToken === undefined) {
    store.transaction(() => {
      svc.bootstrap();
      if (seedData !== undefined) svc.seed(seedData);
    });
  }
  identity = {
    identityUid: store.meta.bootstrapIdentityUid!,
    orgUid: store.meta.orgUid!,
    token: store.meta.bootstrapToken!,
  };
  svc.persist();

  let client: import("../sdk").PlatformClient | undefined;
  return {
    url,
    authUrl: url,
    token: identity.token,
    orgUid: identity.orgUid,
    userUid: identity.identityUid,
    get client() {
      if (client === undefined) {
        // Lazy: the SDK is optional for users of the emulator's HTTP surface.
        const sdk = require("../sdk") as typeof import("../sdk");
        // A NotFound is taken for propagation only as long as this emulator delays it (by default not at all):
        // otherwise every check that an object is gone would wait out the client's default window.
        client = new sdk.PlatformClient({
          apiUrl: url,
          token: identity.token,
          propagationWindowMs: svc.access.propagationDelayMs,
        });
      }
      return client;
    },
    clock: {
      now: () => clock.now(),
      advance: (ms) => {
        control.advance(ms);
        svc.persist();
      },
    },
    reset: () => {
      control.reset();
      svc.persist();
    },
    seed: (data) => {
      const counts = control.seed(data) as SeedCounts;
      svc.persist();
      return counts;
    },
    requestLog: () => control.requestLog(),
    clearRequestLog: () => control.clearRequestLog(),
    snapshot: () =>
      Object.fromEntries(
        KINDS.map((kind) => [
          kind,
          [...store.all(kind)].sort((a, b) => (a.uid < b.uid ? -1 : 1)).map((o) => structuredClone(o)),
        ]),
      ) as Record<Kind, StoredObject[]>,
    faults: { add: (rule) => faults.add(rule), clear: () => faults.clear(), list: () => faults.list() },
    mintIdToken: (mint) => issuer.mint(mint),
    createUser: (name = "user") => {
      const user = control.createUser(name);
      svc.persist();
      return user;
    },
    close: async () => {
      await client?.close();
      sharedListener.close();
      grpcFace.close();
      await app.close();
      store.markChanged(); // the clock reading at close is the one a restart resumes from
      svc.persist();
      store.close(); // the journal folded into the data file: one self-contained JSON file after a clean stop
    },
  };
}
