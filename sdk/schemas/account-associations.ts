/**
 * Account associations: one per group, its uid is the group's uid. Cloud-provider blocks as the API has them:
 * the shapes are OpenAPI platform.iam.v2beta1.AccountAssociation (./openapi.generated); on create and update
 * each block's required members are checked.
 */
import { z } from "zod";
import { AWS_ACCOUNT_PATTERN, INT64_PATTERN, inInt64Range } from "../rules";
import { listEnvelope, ObjectName } from "./common";
import { describedAs, pick } from "./derive";
import * as wire from "./openapi.generated";

export const Amazon = wire.AccountAssociationAmazon.extend({
  account: z.string().regex(AWS_ACCOUNT_PATTERN, "amazon.account must be 12 digits"),
});
export const Azure = wire.AccountAssociationAzure.extend({
  tenantId: z.string().min(1, "azure.tenantId must not be empty"),
  clientIds: z.record(z.string(), z.string()),
});
export const Google = wire.AccountAssociationGoogle.extend({
  projectId: z.string().min(1, "google.projectId must not be empty"),
  // A string in the OpenAPI (no pattern): never stricter than the service.
  projectNumber: z.string().min(1, "google.projectNumber must not be empty"),
});
export const Chainguard = wire.AccountAssociationChainguard.extend({
  serviceBindings: z.record(z.string(), z.string()),
});
const Int64String = z
  .string()
  .regex(INT64_PATTERN, "must be a decimal int64 string")
  .refine(inInt64Range, "must be within the int64 range");
export const GitHubInstallation = wire.AccountAssociationGitHubInstallation.extend({
  installationId: Int64String,
});
export const GitHub = wire.AccountAssociationGitHub.extend({
  appInstallations: z
    .record(
      z.string(),
      wire.AccountAssociationGitHubAppInstallations.extend({
        installations: z.array(GitHubInstallation).optional(),
      }),
    )
    .optional(),
});

export const AccountAssociation = wire.AccountAssociation.required({ uid: true, name: true }).extend({
  github: describedAs(GitHub, wire.AccountAssociation, "github").optional(),
});
export type AccountAssociation = z.infer<typeof AccountAssociation>;

export const AccountAssociationCreate = pick(wire.AccountAssociation, wire.AccountAssociationWritable).extend(
  {
    name: ObjectName,
    amazon: Amazon.optional(),
    azure: Azure.optional(),
    google: Google.optional(),
    chainguard: Chainguard.optional(),
    github: GitHub.optional(),
  },
);
export type AccountAssociationCreate = z.infer<typeof AccountAssociationCreate>;

export const ACCOUNT_ASSOCIATION_UPDATE_FIELDS = wire.AccountAssociationWritable;
export const AccountAssociationUpdate = AccountAssociationCreate.partial();
export type AccountAssociationUpdate = z.infer<typeof AccountAssociationUpdate>;

export const AccountAssociationList = listEnvelope("accountAssociations", AccountAssociation);
