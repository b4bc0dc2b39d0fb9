/**
 * platform.iam.AccountAssociation, declared once (../core/declaration). A group has at
 * most one association and its uid is the group's uid, so `groupUid` is the identity (changing it
 * replaces). The cloud-provider blocks are the API's own.
 *
 * May import: zod, ../../sdk/rules, ../../sdk/schemas, ../core/declaration.
 */
import { z } from "zod";
import { Uidp } from "../../sdk/schemas";
import { AWS_ACCOUNT_PATTERN, INT64_PATTERN, inInt64Range } from "../../sdk/rules";
import { adoptInput, declareResource, input, output } from "../core/declaration";

const text = (what: string) => z.string().min(1, `${what} must not be empty`);

export const AmazonInputSchema = z.object({
  account: z.string().regex(AWS_ACCOUNT_PATTERN, "account must be 12 digits").describe("The AWS account id."),
});
export const AzureInputSchema = z.object({
  tenantId: text("tenantId").describe("The Azure tenant id."),
  clientIds: z
    .record(z.string(), z.string())
    .describe('Client ids by name, e.g. {"platform": "<client id>"}.'),
});
export const GoogleInputSchema = z.object({
  projectId: text("projectId").describe("The Google Cloud project id."),
  // A string in the OpenAPI, with no pattern: never stricter than the service.
  projectNumber: text("projectNumber").describe("The project number."),
});
export const ChainguardInputSchema = z.object({
  serviceBindings: z
    .record(z.string(), z.string())
    .describe('Identity uids by service name, e.g. {"INGESTER": "<identity uid>"}.'),
});
export const GitHubInputSchema = z.object({
  appInstallations: z
    .record(
      z.string(),
      z.object({
        installations: z
          .array(
            z.object({
              installationId: z
                .string({ error: "installationId is required" })
                .regex(INT64_PATTERN, "installationId must be a decimal int64 string")
                .refine(inInt64Range, "installationId must be within the int64 range")
                .describe("The installation's id: a decimal int64 string."),
              name: z.string().optional(),
            }),
          )
          .optional(),
      }),
    )
    .optional()
    .describe("GitHub App installations by app name."),
});

/** The blocks, in the order the API lists them. */
export const ASSOCIATION_BLOCKS = ["amazon", "azure", "google", "chainguard", "github"] as const;

export const ACCOUNT_ASSOCIATION = declareResource({
  token: "platform:iam:AccountAssociation",
  stem: "account-association",
  summary:
    "A group's cloud accounts (amazon, azure, google, chainguard, github). One per group; its uid is the group's uid.",
  importId: "the group's uid (an association's uid is its group's)",
  inputs: {
    groupUid: input(Uidp, {
      doc: "The group the association belongs to; also the association's uid. Changing it replaces the association.",
      replaces: true,
      inPath: true,
    }),
    name: input(text("name"), { doc: "The association's name." }),
    description: input(z.string().optional(), {
      doc: "A description; absent is the same as empty.",
      default: "",
    }),
    amazon: input(AmazonInputSchema.optional(), { doc: "An AWS account." }),
    azure: input(AzureInputSchema.optional(), { doc: "An Azure tenant." }),
    google: input(GoogleInputSchema.optional(), { doc: "A Google Cloud project." }),
    chainguard: input(ChainguardInputSchema.optional(), { doc: "The platform's own service bindings." }),
    github: input(GitHubInputSchema.optional(), { doc: "GitHub App installations." }),
    adopt: adoptInput(
      "Take over the group's existing association instead of failing, then update it to match.",
    ),
  },
  outputs: {
    uid: output(z.string(), "The association's uid: the group's uid."),
    createTime: output(z.string(), "When the association was created (RFC 3339)."),
  },
});

export const AccountAssociationInputSchema = ACCOUNT_ASSOCIATION.inputSchema;
export type AccountAssociationInputs = z.infer<typeof AccountAssociationInputSchema>;
