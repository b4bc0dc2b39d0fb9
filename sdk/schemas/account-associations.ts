/**
 * Account associations: one per group, its uid is the group's uid. Cloud-provider blocks as the API has them.
 * OpenAPI platform.iam.v2beta1.AccountAssociation.
 */
import { z } from "zod";
import { Timestamp, listEnvelope } from "./common";

export const Amazon = z.object({ account: z.string().regex(/^\d{12}$/, "amazon.account must be 12 digits") });
export const Azure = z.object({
  tenantId: z.string().min(1, "azure.tenantId must not be empty"),
  clientIds: z.record(z.string(), z.string()),
});
export const Google = z.object({
  projectId: z.string().min(1, "google.projectId must not be empty"),
  // A string in the OpenAPI (no pattern): never stricter than the service.
  projectNumber: z.string().min(1, "google.projectNumber must not be empty"),
});
export const Chainguard = z.object({ serviceBindings: z.record(z.string(), z.string()) });
/** A signed 64-bit integer, as protobuf's JSON mapping writes one: a decimal string (OpenAPI format int64). */
const Int64String = z
  .string()
  .regex(/^-?\d{1,19}$/, "must be a decimal int64 string")
  .refine(
    (v) => !/^-?\d{1,19}$/.test(v) || (BigInt(v) >= -(2n ** 63n) && BigInt(v) < 2n ** 63n),
    "must be within the int64 range",
  );
export const GitHubInstallation = z.object({ installationId: Int64String, name: z.string().optional() });
export const GitHub = z.object({
  appInstallations: z
    .record(z.string(), z.object({ installations: z.array(GitHubInstallation).optional() }))
    .optional(),
});

export const AccountAssociation = z.object({
  uid: z.string(),
  name: z.string(),
  description: z.string().optional(),
  amazon: Amazon.partial().optional(),
  azure: Azure.partial().optional(),
  google: Google.partial().optional(),
  chainguard: Chainguard.partial().optional(),
  github: GitHub.optional(),
  createTime: Timestamp.optional(),
  updateTime: Timestamp.optional(),
});
export type AccountAssociation = z.infer<typeof AccountAssociation>;

export const AccountAssociationCreate = z.object({
  name: z.string({ error: "name is required" }).min(1, "name must not be empty"),
  description: z.string().optional(),
  amazon: Amazon.optional(),
  azure: Azure.optional(),
  google: Google.optional(),
  chainguard: Chainguard.optional(),
  github: GitHub.optional(),
});
export type AccountAssociationCreate = z.infer<typeof AccountAssociationCreate>;

export const ACCOUNT_ASSOCIATION_UPDATE_FIELDS = [
  "name",
  "description",
  "amazon",
  "azure",
  "google",
  "chainguard",
  "github",
] as const;
export const AccountAssociationUpdate = AccountAssociationCreate.partial();
export type AccountAssociationUpdate = z.infer<typeof AccountAssociationUpdate>;

export const AccountAssociationList = listEnvelope("accountAssociations", AccountAssociation);
