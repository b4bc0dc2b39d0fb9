/**
 * The ONE translator from any error to the message a person reads at the Pulumi edge: what was attempted,
 * on which resource (type, name/uid), what the service said, and what to do next. Never a credential:
 * every message is scrubbed of the configured secrets before it leaves.
 *
 * May import: the SDK's error classes, ./client (for the secrets to scrub).
 */
import {
  AlreadyExistsError,
  ApiError,
  ConfigurationError,
  ConnectionError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  ResourceExhaustedError,
  ResponseValidationError,
  TimeoutError,
  UnauthenticatedError,
  UnavailableError,
} from "../../sdk";
import { secretValues } from "./config";
import { currentSettings } from "./client";

/** What was being done when the error happened. */
export interface Attempt {
  /** A verb phrase: "create", "read", "update", "delete", "look up", "list". */
  action: string;
  /** The Pulumi type, e.g. "platform:iam:Group". */
  type: string;
  /** The Pulumi name or the API name of the object. */
  name?: string | undefined;
  uid?: string | undefined;
  /** Extra context, e.g. "under parent <uid>". */
  where?: string | undefined;
  profile?: string | undefined;
  /** What the provider found out itself, e.g. the children still in a group it could not delete. */
  found?: string | undefined;
}

const CREDENTIAL_HINT =
  "Set credentials with `pulumi config set --secret platform:token <token>` or the PLATFORM_TOKEN environment " +
  "variable (for a workload identity: platform:identity + platform:identityTokenFile, or PLATFORM_IDENTITY + " +
  "PLATFORM_IDENTITY_TOKEN_FILE)";

function profileHint(attempt: Attempt): string {
  return attempt.profile
    ? ` for profile "${attempt.profile}" (platform:profiles.${attempt.profile}.token)`
    : "";
}

function whose(attempt: Attempt): string {
  return attempt.profile ? `the credentials of profile "${attempt.profile}"` : "these credentials";
}

/** The advice for each kind of failure. */
function whatToDo(err: unknown, attempt: Attempt): string {
  if (UnauthenticatedError.isInstance(err)) {
    return `The service did not accept the credentials${profileHint(attempt)}: they are missing, expired or for another environment. ${CREDENTIAL_HINT}.`;
  }
  if (PermissionDeniedError.isInstance(err)) {
    return `The identity behind ${whose(attempt)} lacks a role on this group: bind a role with the needed capability (e.g. with platform.iam.RoleBinding) or use a profile for an identity that has it.`;
  }
  if (ConfigurationError.isInstance(err)) {
    return `Set the API address with \`pulumi config set platform:apiUrl <url>\` or PLATFORM_API_URL; ${CREDENTIAL_HINT}.`;
  }
  if (AlreadyExistsError.isInstance(err)) {
    return "An object with this name already exists here: set `adopt: true` to take it over, or choose another name.";
  }
  if (FailedPreconditionError.isInstance(err)) {
    return attempt.action === "delete"
      ? "Delete or move what still lives in it first (or remove them from the program in the same update), then retry."
      : "Bring the service into the required state first, then retry.";
  }
  if (InvalidArgumentError.isInstance(err)) return "Fix the fields named above in the program.";
  if (NotFoundError.isInstance(err)) {
    return `Check that the uids it refers to (parent group, identity, role) exist and that ${whose(attempt)} can see them.`;
  }
  if (ResourceExhaustedError.isInstance(err))
    return "The service is rate limiting: wait a moment and run the update again.";
  if (ConnectionError.isInstance(err) || TimeoutError.isInstance(err) || UnavailableError.isInstance(err)) {
    return "Check platform:apiUrl / PLATFORM_API_URL and the network, then run the update again (it is safe to repeat).";
  }
  if (ResponseValidationError.isInstance(err)) {
    return "The service answered in a shape this package does not understand: upgrade pulumi-platform or report it.";
  }
  return "Run the update again; if it keeps failing, report it with this message.";
}

/** What the service said, with field and precondition violations spelled out if the message lacks them. */
function whatTheServiceSaid(err: unknown): string {
  const base = err instanceof Error ? err.message : String(err);
  if (!ApiError.isInstance(err)) return base;
  const api = err as ApiError;
  const extra: string[] = [];
  for (const v of api.fieldViolations ?? []) {
    const text = `${v.field}: ${v.description}`;
    if (!base.includes(v.description)) extra.push(text);
  }
  for (const v of api.preconditionViolations ?? []) {
    const text = [v.type, v.subject, v.description].filter(Boolean).join(" ");
    if (!base.includes(v.description)) extra.push(text);
  }
  return extra.length > 0 ? `${base} (${extra.join("; ")})` : base;
}

/** Replaces every configured secret in `text` by "[redacted]". */
export function scrub(text: string, secrets: string[] = secretValues(currentSettings())): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join("[redacted]");
  // Bearer tokens that came from somewhere else (env) are cut too.
  return out.replace(/Bearer\s+[A-Za-z0-9._~+/=-]+/g, "Bearer [redacted]");
}

/** Turns any error into one readable Error. The original is kept as `cause` for debugging. */
export function translateError(err: unknown, attempt: Attempt, secrets?: string[]): Error {
  const subject = [
    attempt.type,
    attempt.name !== undefined ? `"${attempt.name}"` : undefined,
    attempt.uid !== undefined ? `(uid ${attempt.uid})` : undefined,
    attempt.where,
  ]
    .filter(Boolean)
    .join(" ");
  const found = attempt.found ? ` ${attempt.found}.` : "";
  const message = `Could not ${attempt.action} ${subject}: ${whatTheServiceSaid(err)}.${found} ${whatToDo(err, attempt)}`;
  const translated = new Error(scrub(message, secrets));
  translated.name = "PlatformProviderError";
  return translated;
}
