/**
 * PlatformClient: the typed client of the Platform Management API v2beta1, one property per resource.
 *
 *   const client = new PlatformClient({ apiUrl, token });
 *   const org = await client.groups.create(undefined, { name: "acme" });
 *   for await (const g of client.groups.list({ descendantsOf: org.uid })) console.log(g.name);
 *   await client.close();
 *
 * Options and their env vars are in ./config; errors in ./errors; the request pipeline in ./core.
 *
 * May import: ./config, ./core, ./resources/*.
 */
import { resolveConfig, type PlatformClientOptions } from "./config";
import { Core } from "./core";
import { Groups } from "./resources/groups";

export class PlatformClient {
  /** The API base URL in use, normalized (no trailing slash). */
  readonly apiUrl: string;
  readonly groups: Groups;

  private readonly core: Core;

  /** Throws ConfigurationError when apiUrl or credentials are missing or an option is invalid. */
  constructor(options: PlatformClientOptions = {}) {
    const config = resolveConfig(options);
    this.core = new Core(config);
    this.apiUrl = config.apiUrl;
    this.groups = new Groups(this.core);
  }

  /** Close the connection pools. Idempotent. */
  close(): Promise<void> {
    return this.core.close();
  }
}
