/**
 * The ONE translator from any error to the message a person reads at the Pulumi edge: what was attempted,
 * on which resource (type, name/uid), what the service said, and what to do next. Never a credential:
 * every message is scrubbed of the configured secrets before it leaves.
 */
import {
  AlreadyExistsError,
  ApiError,
  ConfigurationError,
  ConnectionError,
  ExpiredTokenError,
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
import { secretValues, type SettingName } from "./config";
import { quoted, type Words } from "../../sdk/words";
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
  /** Extra context, e.g. "under group <uid>": our words with the data in them escaped (../../sdk/words `said`). */
  where?: Words | undefined;
  profile?: string | undefined;
  /** What the provider found out itself, e.g. the children still in a group it could not delete (`said`). */
  found?: Words | undefined;
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
  // The message names the setting to refresh already; the general credential advice would only blur it.
  if (ExpiredTokenError.isInstance(err)) return "";
  if (UnauthenticatedError.isInstance(err)) {
    return `The service did not accept the credentials${profileHint(attempt)}: they are missing, expired or for another environment. ${CREDENTIAL_HINT}.`;
  }
  if (PermissionDeniedError.isInstance(err)) {
    return `The identity behind ${whose(attempt)} lacks a role on this group: bind a role with the needed capability (e.g. with platform.iam.RoleBinding) or use a profile for an identity that has it.`;
  }
  if (ConfigurationError.isInstance(err)) {
    // The message names the setting to fix, in the user's terms; only a missing credential needs the overview.
    return /no credentials/.test((err as Error).message)
      ? "Keep tokens secret: `pulumi config set --secret platform:token <token>`."
      : "";
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

/**
 * What the service said, in its own words (not the HTTP method and path: the resource is named already), with
 * field and precondition violations spelled out only where the message lacks them.
 */
function whatTheServiceSaid(err: unknown, terms: SettingTerms | undefined): string {
  if (ConfigurationError.isInstance(err)) return inUserTerms((err as Error).message, terms);
  const base = err instanceof Error ? err.message : String(err);
  if (!ApiError.isInstance(err)) return base;
  const api = err as ApiError;
  // The client names its own settings in what it adds (an expired token, the propagation window): in user terms.
  const said = inUserTerms(api.serviceMessage, terms);
  const extra: string[] = [];
  for (const v of api.fieldViolations ?? []) {
    if (!said.includes(v.description)) extra.push(`${v.field}: ${v.description}`);
  }
  for (const v of api.preconditionViolations ?? []) {
    if (!said.includes(v.description))
      extra.push([v.type, v.subject, v.description].filter(Boolean).join(" "));
  }
  return extra.length > 0 ? `${said} (${extra.join("; ")})` : said;
}

/** How the user spelled each connection setting: the stack-config key or env variable they used. */
export type SettingTerms = Partial<Record<SettingName, string>>;

/**
 * Rewrites the SDK's "option identityToken (env PLATFORM_IDENTITY_TOKEN)" into the setting the user configured
 * (platform:identityToken, platform:profiles.<p>.identityToken, or the env variable), so a message speaks of what
 * they can change; "pass <option>" becomes "set <setting>".
 */
export function inUserTerms(message: string, terms: SettingTerms | undefined): string {
  return message.replace(
    /(pass )?option (\w+) \(env (\w+)\)/g,
    (_all, pass: string | undefined, option: string, env: string) => {
      const term =
        (terms as Record<string, string> | undefined)?.[option] ?? `platform:${option} (or ${env})`;
      return `${pass ? "set " : ""}${term}`;
    },
  );
}

/** Replaces every configured secret in `text` by "[redacted]". */
export function scrub(text: string, secrets: string[] = secretValues(currentSettings())): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join("[redacted]");
  // Bearer tokens that came from somewhere else (env) are cut too.
  return out.replace(/Bearer\s+[A-Za-z0-9._~+/=-]+/g, "Bearer [redacted]");
}

/** Whether the user asked for verbose logs (`pulumi ... -v=N`, or PULUMI_PLATFORM_DEBUG): then stacks are shown. */
export function verboseLogs(argv: readonly string[] = process.argv, env = process.env): boolean {
  return argv.some((a) => /^--?v=[1-9]/.test(a)) || (env["PULUMI_PLATFORM_DEBUG"] ?? "") !== "";
}

/**
 * Turns any error into one readable Error: one line of what failed on which resource, what the service said,
 * what to do. No stack trace (the stack is the message itself) unless the user asked for verbose logs; the
 * original is kept as `cause`. `terms` says how the user spelled the connection settings.
 */
export function translateError(
  err: unknown,
  attempt: Attempt,
  secrets?: string[],
  terms?: SettingTerms,
): Error {
  const subject = [
    attempt.type,
    attempt.name !== undefined ? quoted(attempt.name) : undefined,
    attempt.uid !== undefined ? `(uid ${attempt.uid})` : attempt.where,
  ]
    .filter(Boolean)
    .join(" ");
  // Scrubbed before the sentence goes on, so a redacted bearer token cannot swallow the full stop after it.
  const said = scrub(whatTheServiceSaid(err, terms), secrets).replace(/[.\s]+$/, "");
  const found = attempt.found ? ` ${attempt.found}.` : "";
  const advice = whatToDo(err, attempt);
  const message = scrub(
    `Could not ${attempt.action} ${subject}: ${said}.${found}${advice ? ` ${advice}` : ""}`,
    secrets,
  );
  const translated = new Error(message, { cause: err });
  translated.name = "PlatformProviderError";
  const cause = err instanceof Error && err.stack !== undefined ? scrub(err.stack, secrets) : undefined;
  translated.stack = verboseLogs() && cause !== undefined ? `${message}\nCaused by: ${cause}` : message;
  return translated;
}

const pendingEchoes = new Set<string>();
const echoFilters = new WeakSet<object>();

/**
 * The dynamic-provider host prints `${error}: ${error.stack}` to stderr for every error thrown from check, diff,
 * read and delete, then returns the error to the engine, which prints it again: the user saw the message twice and
 * a stack trace. This drops exactly that echo of an error we translated (nothing else the process prints), unless
 * the user asked for verbose logs. Call it on the error a provider method is about to throw.
 */
export function withoutHostEcho(error: Error): Error {
  if (verboseLogs()) return error;
  pendingEchoes.add(`${String(error)}: ${error.stack ?? ""}`);
  if (!echoFilters.has(console.error)) {
    const inner = console.error.bind(console);
    const filter = (...args: unknown[]): void => {
      if (args.length === 1 && typeof args[0] === "string" && pendingEchoes.delete(args[0])) return;
      inner(...args);
    };
    echoFilters.add(filter);
    console.error = filter;
  }
  return error;
}
