/**
 * The data sources the plugin serves through Invoke, by the schema's function token: the same functions a
 * program calls (provider/<module>/get-<x>), which build their client through withProgramClient; the plugin
 * points that at its own configured settings (provider/core/program-client setSettingsSource).
 *
 * May import: ../provider data-source modules.
 */
import { getRoles } from "../provider/iam/get-roles";
import { getRole } from "../provider/iam/get-role";
import { getGroup } from "../provider/iam/get-group";
import { getIdentity } from "../provider/iam/get-identity";
import { getIdentityProviders } from "../provider/iam/get-identity-providers";
import { getRepos } from "../provider/registry/get-repos";
import { getRepo } from "../provider/registry/get-repo";
import { getTags } from "../provider/registry/get-tags";
import { getAdvisories } from "../provider/vulnerabilities/get-advisories";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each function checks its own arguments with zod
type DataSource = (args: any) => Promise<unknown>;

export const DATA_SOURCES: ReadonlyMap<string, DataSource> = new Map<string, DataSource>([
  ["platform:iam:getRoles", getRoles],
  ["platform:iam:getRole", getRole],
  ["platform:iam:getGroup", getGroup],
  ["platform:iam:getIdentity", getIdentity],
  ["platform:iam:getIdentityProviders", getIdentityProviders],
  ["platform:registry:getRepos", getRepos],
  ["platform:registry:getRepo", getRepo],
  ["platform:registry:getTags", getTags],
  ["platform:vulnerabilities:getAdvisories", getAdvisories],
]);
