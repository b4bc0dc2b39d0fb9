/**
 * One set-up for the tests that need an organization (test/commands, test/provider/*access*, ...): the in-process
 * emulator's bootstrap organization, with the objects those tests make again and again (a folder, an OIDC identity
 * whose subject is its name, a built-in role's uid, the organization's name).
 *
 *   const org = useOrganization();            // starts an emulator before the file's tests, closes it after
 *   const org = organizationOf(h.emulator);   // the same helpers over an emulator the test already has
 */
import { BUILTIN_ROLES, startEmulator, type Emulator, type EmulatorOptions } from "../emulator";
import type { Group, Identity, PlatformClient } from "../sdk";
import { useStarted } from "./lifecycle";

/** The issuer of the identities `identity` makes. */
export const TEST_ISSUER = "https://issuer.example";

export interface Organization {
  readonly emulator: Emulator;
  readonly client: PlatformClient;
  /** The bootstrap organization's uid. */
  readonly uid: string;
  /** The organization's name, as the service returns it. */
  name(): Promise<string>;
  /** A built-in role's uid (viewer, editor, owner, ...). */
  role(name: string): string;
  /** A folder named `name` under `parent` (default: the organization). */
  folder(name: string, parent?: string): Promise<Group>;
  /** An OIDC identity under `parent` (default: the organization) matching TEST_ISSUER and the subject `name`. */
  identity(name: string, parent?: string): Promise<Identity>;
}

/** A built-in role's uid (viewer, editor, owner, ...): the same in every emulator. */
export function builtinRole(name: string): string {
  const role = BUILTIN_ROLES.find((r) => r.name === name);
  if (role === undefined) throw new Error(`no built-in role ${name}`);
  return role.uid;
}

/** The helpers over an emulator a test already runs. */
export function organizationOf(emulator: Emulator): Organization {
  return {
    emulator,
    client: emulator.client,
    uid: emulator.orgUid,
    name: async () => (await emulator.client.groups.get(emulator.orgUid)).name,
    role: builtinRole,
    folder: (name, parent = emulator.orgUid) => emulator.client.groups.create(parent, { name }),
    identity: (name, parent = emulator.orgUid) =>
      emulator.client.identities.create(parent, {
        name,
        claimMatch: { issuer: TEST_ISSUER, subject: name },
      }),
  };
}

/**
 * Starts an emulator before the tests of the calling file or describe block and closes it after; the returned
 * object reads the one started (use it inside hooks and tests, not at collection time).
 */
export function useOrganization(options: EmulatorOptions = {}): Organization {
  const get = useStarted(
    "useOrganization",
    async () => organizationOf(await startEmulator(options)),
    (organization) => organization.emulator.close(),
  );
  return {
    get emulator() {
      return get().emulator;
    },
    get client() {
      return get().client;
    },
    get uid() {
      return get().uid;
    },
    name: () => get().name(),
    role: (name) => get().role(name),
    folder: (name, parent) => get().folder(name, parent),
    identity: (name, parent) => get().identity(name, parent),
  };
}
