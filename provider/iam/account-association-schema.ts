/**
 * The inputs of platform.iam.AccountAssociation as one zod schema (check, schema.json). A group has at
 * most one association and its uid is the group's uid, so `groupUid` is the identity (changing it
 * replaces). The cloud-provider blocks are the API's own.
 *
 * May import: zod, ../../sdk/schemas, ../core.
 */
import { z } from "zod";
import { Uidp } from "../../sdk/schemas";
import type { FieldSpec } from "../core/diff";
import { CommonInputSchema } from "../core/common-schema";

const text = (what: string) => z.string().min(1, `${what} must not be empty`);

export const AmazonInputSchema = z
  .object({
    account: z
      .string()
      .regex(/^\d{12}$/, "account must be 12 digits")
      .describe("The AWS account id."),
  })
  .describe("An AWS account.");
export const AzureInputSchema = z
  .object({
    tenantId: text("tenantId").describe("The Azure tenant id."),
    clientIds: z
      .record(z.string(), z.string())
      .describe('Client ids by name, e.g. {"platform": "<client id>"}.'),
  })
  .describe("An Azure tenant.");
export const GoogleInputSchema = z
  .object({
    projectId: text("projectId").describe("The Google Cloud project id."),
    // A string in the OpenAPI, with no pattern: never stricter than the service.
    projectNumber: text("projectNumber").describe("The project number."),
  })
  .describe("A Google Cloud project.");
export const ChainguardInputSchema = z
  .object({
    serviceBindings: z
      .record(z.string(), z.string())
      .describe('Identity uids by service name, e.g. {"INGESTER": "<identity uid>"}.'),
  })
  .describe("The platform's own service bindings.");
export const GitHubInputSchema = z
  .object({
    appInstallations: z
      .record(
        z.string(),
        z.object({
          installations: z
            .array(z.object({ installationId: text("installationId"), name: z.string().optional() }))
            .optional(),
        }),
      )
      .optional()
      .describe("GitHub App installations by app name."),
  })
  .describe("GitHub App installations.");

/** The blocks, in the order the API lists them. */
export const ASSOCIATION_BLOCKS = ["amazon", "azure", "google", "chainguard", "github"] as const;

export const AccountAssociationInputSchema = z.object({
  groupUid: Uidp.describe(
    "The group the association belongs to; also the association's uid. Changing it replaces the association.",
  ),
  name: text("name").describe("The association's name."),
  description: z.string().optional().describe("A description; absent is the same as empty."),
  amazon: AmazonInputSchema.optional(),
  azure: AzureInputSchema.optional(),
  google: GoogleInputSchema.optional(),
  chainguard: ChainguardInputSchema.optional(),
  github: GitHubInputSchema.optional(),
  profile: CommonInputSchema.shape.profile,
  adopt: z
    .boolean()
    .optional()
    .describe("Take over the group's existing association instead of failing, then update it to match."),
});
export type AccountAssociationInputs = z.infer<typeof AccountAssociationInputSchema>;

export const ACCOUNT_ASSOCIATION_FIELDS: readonly FieldSpec[] = [
  { key: "name", kind: "string" },
  { key: "description", kind: "string" },
  ...ASSOCIATION_BLOCKS.map((key) => ({ key, kind: "object" as const })),
  { key: "groupUid", kind: "string", replaces: true },
];

export const AccountAssociationOutputSchema = z.object({
  uid: z.string().describe("The association's uid: the group's uid."),
  createTime: z.string().describe("When the association was created (RFC 3339)."),
});
