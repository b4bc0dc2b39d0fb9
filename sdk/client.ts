/**
 * PlatformClient: the typed client of the Platform Management API v2beta1, one property per resource.
 *
 *   const client = new PlatformClient({ apiUrl, token });
 *   const org = await client.groups.create(undefined, { name: "acme" });
 *   for await (const g of client.groups.list({ descendantsOf: org.uid })) console.log(g.name);
 *   await client.close();
 *
 * Options and their env vars are in ./config; errors in ./errors; the request pipeline in ./core.
 */
import { resolveConfig, type PlatformClientOptions } from "./config";
import { Core } from "./core";
import { AccountAssociations } from "./resources/account-associations";
import { Advisories } from "./resources/advisories";
import { GroupInvites } from "./resources/group-invites";
import { Groups } from "./resources/groups";
import { Identities } from "./resources/identities";
import { IdentityProviders } from "./resources/identity-providers";
import { Repos } from "./resources/repos";
import { RoleBindings } from "./resources/role-bindings";
import { Roles } from "./resources/roles";
import { Tags } from "./resources/tags";
import { V1 } from "./resources/v1";

export class PlatformClient {
  /** The API base URL in use, normalized (no trailing slash). */
  readonly apiUrl: string;
  readonly groups: Groups;
  readonly identities: Identities;
  readonly roles: Roles;
  readonly roleBindings: RoleBindings;
  readonly identityProviders: IdentityProviders;
  readonly groupInvites: GroupInvites;
  readonly accountAssociations: AccountAssociations;
  readonly repos: Repos;
  readonly tags: Tags;
  readonly advisories: Advisories;
  readonly v1: V1;

  private readonly core: Core;

  /** Throws ConfigurationError when apiUrl or credentials are missing or an option is invalid. */
  constructor(options: PlatformClientOptions = {}) {
    const config = resolveConfig(options);
    const core = new Core(config);
    this.core = core;
    this.apiUrl = config.apiUrl;
    this.groups = new Groups(core);
    this.identities = new Identities(core);
    this.roles = new Roles(core);
    this.roleBindings = new RoleBindings(core);
    this.identityProviders = new IdentityProviders(core);
    this.groupInvites = new GroupInvites(core);
    this.accountAssociations = new AccountAssociations(core);
    this.repos = new Repos(core);
    this.tags = new Tags(core);
    this.advisories = new Advisories(core);
    this.v1 = new V1(core);
  }

  /** Close the connection pools. Idempotent. */
  close(): Promise<void> {
    return this.core.close();
  }
}
