/**
 * platform.iam.AccountAssociation, declared once (../core/declaration). A group has at
 * most one association and its uid is the group's uid, so `groupUid` is the identity (changing it
 * replaces). The cloud-provider blocks are the API's own.
 */
import { z } from "zod";
import { Uidp } from "../../sdk/schemas";
import * as wire from "../../sdk/schemas/openapi.generated";
import { AWS_ACCOUNT_PATTERN, INT64_PATTERN, inInt64Range } from "../../sdk/rules";
import { adoptInput, declareResource, input, nestedInput, output } from "../core/declaration";

const text = (what: string) => z.string().min(1, `${what} must not be empty`);

// Each block's members and types are the wire's (OpenAPI platform.iam.v2beta1.AccountAssociation.*, generated);
// the declaration gives the docs, the required members (the OpenAPI's `...Required` lists) and stricter rules.
const nonEmpty =
  (what: string) =>
  (member: z.ZodString): z.ZodString =>
    member.min(1, `${what} must not be empty`);

export const AmazonInputSchema = nestedInput(wire.AccountAssociationAmazon, {
  account: {
    doc: "The AWS account id.",
    required: true,
    rule: (member) => member.regex(AWS_ACCOUNT_PATTERN, "account must be 12 digits"),
  },
});
export const AzureInputSchema = nestedInput(wire.AccountAssociationAzure, {
  tenantId: { doc: "The Azure tenant id.", required: true, rule: nonEmpty("tenantId") },
  clientIds: { doc: 'Client ids by name, e.g. {"platform": "<client id>"}.', required: true },
});
export const GoogleInputSchema = nestedInput(wire.AccountAssociationGoogle, {
  projectId: { doc: "The Google Cloud project id.", required: true, rule: nonEmpty("projectId") },
  // A string in the OpenAPI, with no pattern: never stricter than the service.
  projectNumber: { doc: "The project number.", required: true, rule: nonEmpty("projectNumber") },
});
export const ChainguardInputSchema = nestedInput(wire.AccountAssociationChainguard, {
  serviceBindings: {
    doc: 'Identity uids by service name, e.g. {"INGESTER": "<identity uid>"}.',
    required: true,
  },
});
const GitHubInstallationInputSchema = nestedInput(wire.AccountAssociationGitHubInstallation, {
  installationId: {
    doc: "The installation's id: a decimal int64 string.",
    required: true,
    rule: () =>
      z
        .string({ error: "installationId is required" })
        .regex(INT64_PATTERN, "installationId must be a decimal int64 string")
        .refine(inInt64Range, "installationId must be within the int64 range"),
  },
  name: { doc: "The GitHub user or organization the installation belongs to (informational)." },
});
const GitHubAppInstallationsInputSchema = nestedInput(wire.AccountAssociationGitHubAppInstallations, {
  installations: {
    doc: "The app's installations.",
    rule: () => z.array(GitHubInstallationInputSchema),
  },
});
export const GitHubInputSchema = nestedInput(wire.AccountAssociationGitHub, {
  appInstallations: {
    doc: "GitHub App installations by app name.",
    rule: () => z.record(z.string(), GitHubAppInstallationsInputSchema),
  },
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
