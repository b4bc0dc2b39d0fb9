/**
 * The client's error hierarchy, and the one factory that turns an HTTP error response into it.
 *
 *   PlatformError
 *     ConfigurationError        missing or invalid options (names the option and its env var)
 *     ConnectionError           network failure; the request may or may not have reached the service
 *     TimeoutError              no complete response within timeoutMs (same caveat)
 *     ResponseValidationError   a 2xx body that does not match its schema
 *     ApiError                  the service answered with an error (AIP-193 body, or a bare HTTP status)
 *       InvalidArgumentError (3), NotFoundError (5), AlreadyExistsError (6), PermissionDeniedError (7),
 *       ResourceExhaustedError (8), FailedPreconditionError (9), InternalError (13), UnavailableError (14),
 *       UnauthenticatedError (16)
 *         ExpiredTokenError     a static token that expired (names the setting to refresh)
 *
 * `instanceof` is unreliable when the provider and the SDK are loaded as two copies of this module (Pulumi runs
 * the provider in another process, from another path), so every class carries a brand: each instance holds the
 * list of kinds it belongs to under a `Symbol.for` key, and each class's static `isInstance` checks it.
 *
 * Messages never contain a credential: the client passes its secrets to `redact` before any text reaches a message.
 */
import {
  BAD_REQUEST_TYPE,
  ERROR_INFO_TYPE,
  ErrorBody,
  GrpcCode,
  PRECONDITION_FAILURE_TYPE,
  type ErrorDetail,
  type FieldViolation,
  type PreconditionViolation,
} from "./schemas/common";

const ERROR_KINDS = Symbol.for("pulumi-platform.sdk.error-kinds");

type ErrorClass<T extends PlatformError> = (abstract new (...args: never[]) => T) & { readonly kind: string };

/** Base of every error the client throws. */
export class PlatformError extends Error {
  static readonly kind: string = "PlatformError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    // Collect the kind of every class from the concrete one up to PlatformError.
    const kinds: string[] = [];
    for (let ctor = new.target as unknown; ctor && ctor !== Error; ctor = Object.getPrototypeOf(ctor)) {
      const kind = (ctor as { kind?: unknown }).kind;
      if (typeof kind === "string" && Object.prototype.hasOwnProperty.call(ctor, "kind")) kinds.push(kind);
    }
    Object.defineProperty(this, ERROR_KINDS, { value: Object.freeze(kinds), enumerable: false });
    Object.defineProperty(this, "name", {
      value: kinds[0] ?? "PlatformError",
      enumerable: false,
      configurable: true,
    });
  }

  /** True when `value` is an instance of this class (or a subclass), from any copy of this module. */
  static isInstance<T extends PlatformError>(this: ErrorClass<T>, value: unknown): value is T {
    if (typeof value !== "object" || value === null) return false;
    const kinds = (value as { [ERROR_KINDS]?: unknown })[ERROR_KINDS];
    return Array.isArray(kinds) && kinds.includes(this.kind);
  }
}

/** Missing or invalid configuration: names the option and its environment variable. */
export class ConfigurationError extends PlatformError {
  static override readonly kind: string = "ConfigurationError";
}

/** A request was malformed before it left the client (empty uid, bad page size, empty update). */
export class RequestError extends PlatformError {
  static override readonly kind: string = "RequestError";
}

/** Where a request was going when it failed. */
export interface RequestSite {
  method: string;
  /** The URL path without the query string. */
  path: string;
}

/** The network failed: refused, reset or dropped. The request may or may not have reached the service. */
export class ConnectionError extends PlatformError {
  static override readonly kind: string = "ConnectionError";
  readonly method: string;
  readonly path: string;
  /** The low-level code, e.g. ECONNRESET or UND_ERR_SOCKET, when known. */
  readonly errorCode: string | undefined;
  constructor(site: RequestSite, detail: string, errorCode: string | undefined, cause?: unknown) {
    super(`${site.method} ${site.path}: connection failed: ${detail}`, { cause });
    this.method = site.method;
    this.path = site.path;
    this.errorCode = errorCode;
  }
}

/** No complete response arrived within timeoutMs. The request may or may not have reached the service. */
export class TimeoutError extends PlatformError {
  static override readonly kind: string = "TimeoutError";
  readonly method: string;
  readonly path: string;
  readonly timeoutMs: number;
  constructor(site: RequestSite, timeoutMs: number, cause?: unknown) {
    super(`${site.method} ${site.path}: no response within ${timeoutMs} ms`, { cause });
    this.method = site.method;
    this.path = site.path;
    this.timeoutMs = timeoutMs;
  }
}

/** One failing field of a response body. */
export interface ValidationIssue {
  /** Dotted path into the body, e.g. `groups.0.uid`; empty for the body itself. */
  field: string;
  message: string;
}

/** A 2xx response whose body does not match the expected schema (or is not JSON at all). */
export class ResponseValidationError extends PlatformError {
  static override readonly kind: string = "ResponseValidationError";
  readonly method: string;
  readonly path: string;
  readonly httpStatus: number;
  readonly issues: ValidationIssue[];
  constructor(site: RequestSite, httpStatus: number, issues: ValidationIssue[]) {
    const listed = issues
      .slice(0, 5)
      .map((i) => `${i.field || "(body)"}: ${i.message}`)
      .join("; ");
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : "";
    super(`${site.method} ${site.path}: unexpected response body: ${listed}${more}`);
    this.method = site.method;
    this.path = site.path;
    this.httpStatus = httpStatus;
    this.issues = issues;
  }

  /** The failing fields, in order. */
  get fields(): string[] {
    return this.issues.map((i) => i.field);
  }
}

/** Everything the factory learned from an error response. */
export interface ApiErrorInit extends RequestSite {
  httpStatus: number;
  code: number;
  /** What the service said (the AIP-193 message, or a short excerpt of a non-JSON body), already redacted. */
  serviceMessage: string;
  details: ErrorDetail[];
  requestId?: string | undefined;
  /** The wait a Retry-After header asked for, in milliseconds. */
  retryAfterMs?: number | undefined;
}

const CODE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(GrpcCode).map(([name, code]) => [code, name]),
);

/** The service answered with an error. Switch on the subclass, or on `code` / `reason`. */
export class ApiError extends PlatformError {
  static override readonly kind: string = "ApiError";
  readonly httpStatus: number;
  /** gRPC status code, from the body when it is AIP-193, else derived from the HTTP status. */
  readonly code: number;
  /** Name of `code`, e.g. INVALID_ARGUMENT. */
  readonly grpcCodeName: string;
  /** ErrorInfo.reason, e.g. FAILED_PRECONDITION. */
  readonly reason: string | undefined;
  /** ErrorInfo.domain, e.g. iam.example.dev. */
  readonly domain: string | undefined;
  readonly details: ErrorDetail[];
  readonly fieldViolations: FieldViolation[];
  readonly preconditionViolations: PreconditionViolation[];
  readonly method: string;
  readonly path: string;
  /** What the service said, without the method and path. */
  readonly serviceMessage: string;
  readonly requestId: string | undefined;
  /** The wait the service's Retry-After header asked for, in milliseconds; used by the retry helper. */
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit) {
    const fieldViolations = init.details.flatMap((d) =>
      d["@type"] === BAD_REQUEST_TYPE && Array.isArray((d as { fieldViolations?: unknown }).fieldViolations)
        ? (d as { fieldViolations: FieldViolation[] }).fieldViolations
        : [],
    );
    const preconditionViolations = init.details.flatMap((d) =>
      d["@type"] === PRECONDITION_FAILURE_TYPE && Array.isArray((d as { violations?: unknown }).violations)
        ? (d as { violations: PreconditionViolation[] }).violations
        : [],
    );
    const info = init.details.find((d) => d["@type"] === ERROR_INFO_TYPE) as
      { reason?: string; domain?: string } | undefined;
    const extras = [
      ...fieldViolations.map((v) => `field ${v.field}: ${v.description}`),
      ...preconditionViolations.map(
        (v) => `${v.type}${v.subject ? ` on ${v.subject}` : ""}: ${v.description}`,
      ),
    ];
    const suffix = extras.length > 0 ? ` (${extras.join("; ")})` : "";
    super(`${init.method} ${init.path}: ${init.serviceMessage}${suffix}`);
    this.httpStatus = init.httpStatus;
    this.code = init.code;
    this.grpcCodeName = CODE_NAMES[init.code] ?? `CODE_${init.code}`;
    this.reason = info?.reason;
    this.domain = info?.domain;
    this.details = init.details;
    this.fieldViolations = fieldViolations;
    this.preconditionViolations = preconditionViolations;
    this.method = init.method;
    this.path = init.path;
    this.serviceMessage = init.serviceMessage;
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** Same as grpcCodeName. */
  get grpcCode(): string {
    return this.grpcCodeName;
  }
}

/**
 * The base of one kind of failure, made by one factory: all it adds to ApiError is its brand (`kind`, the class's
 * name), which `isInstance` checks.
 */
function apiErrorKind(kind: string): typeof ApiError {
  return class extends ApiError {
    static override readonly kind: string = kind;
  };
}

export class InvalidArgumentError extends apiErrorKind("InvalidArgumentError") {}
export class NotFoundError extends apiErrorKind("NotFoundError") {}
export class AlreadyExistsError extends apiErrorKind("AlreadyExistsError") {}
export class PermissionDeniedError extends apiErrorKind("PermissionDeniedError") {}
export class ResourceExhaustedError extends apiErrorKind("ResourceExhaustedError") {}
export class FailedPreconditionError extends apiErrorKind("FailedPreconditionError") {}
export class InternalError extends apiErrorKind("InternalError") {}
export class UnavailableError extends apiErrorKind("UnavailableError") {}
export class UnauthenticatedError extends apiErrorKind("UnauthenticatedError") {}

/**
 * A static API token the service refused because it expired: the message names the setting to refresh (the client
 * renews exchanged tokens itself, never a static one).
 */
export class ExpiredTokenError extends UnauthenticatedError {
  static override readonly kind: string = "ExpiredTokenError";
}

const CLASS_BY_CODE: Record<number, new (init: ApiErrorInit) => ApiError> = {
  [GrpcCode.INVALID_ARGUMENT]: InvalidArgumentError,
  [GrpcCode.OUT_OF_RANGE]: InvalidArgumentError,
  [GrpcCode.NOT_FOUND]: NotFoundError,
  [GrpcCode.ALREADY_EXISTS]: AlreadyExistsError,
  [GrpcCode.ABORTED]: AlreadyExistsError,
  [GrpcCode.PERMISSION_DENIED]: PermissionDeniedError,
  [GrpcCode.RESOURCE_EXHAUSTED]: ResourceExhaustedError,
  [GrpcCode.FAILED_PRECONDITION]: FailedPreconditionError,
  [GrpcCode.INTERNAL]: InternalError,
  [GrpcCode.UNKNOWN]: InternalError,
  [GrpcCode.DATA_LOSS]: InternalError,
  [GrpcCode.UNAVAILABLE]: UnavailableError,
  [GrpcCode.UNAUTHENTICATED]: UnauthenticatedError,
};

/** The codes bare HTTP statuses stand for, when the body is not AIP-193. */
const CODE_BY_HTTP_STATUS: ReadonlyMap<number, number> = new Map([
  [400, GrpcCode.INVALID_ARGUMENT],
  [401, GrpcCode.UNAUTHENTICATED],
  [403, GrpcCode.PERMISSION_DENIED],
  [404, GrpcCode.NOT_FOUND],
  [409, GrpcCode.ALREADY_EXISTS],
  [412, GrpcCode.FAILED_PRECONDITION],
  [429, GrpcCode.RESOURCE_EXHAUSTED],
  [499, GrpcCode.CANCELLED],
  [501, GrpcCode.UNIMPLEMENTED],
  [502, GrpcCode.UNAVAILABLE],
  [503, GrpcCode.UNAVAILABLE],
  [504, GrpcCode.DEADLINE_EXCEEDED],
]);

/** The code a bare HTTP status stands for, when the body is not AIP-193. */
export function codeForHttpStatus(status: number): number {
  return CODE_BY_HTTP_STATUS.get(status) ?? (status >= 500 ? GrpcCode.INTERNAL : GrpcCode.UNKNOWN);
}

/** Replace every occurrence of each secret in `text`. Secrets shorter than 4 characters are ignored. */
export function redact(text: string, secrets: Iterable<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
  }
  return out;
}

/** What the error factory needs from a response. */
export interface ErrorResponse extends RequestSite {
  httpStatus: number;
  bodyText: string;
  requestId?: string | undefined;
  retryAfterMs?: number | undefined;
  /** Strings that must never appear in the error (the client's tokens). */
  secrets?: Iterable<string | undefined>;
}

/**
 * The one factory: an error response becomes the ApiError subclass of its gRPC code. The code comes from the
 * body when the body is AIP-193 (the spec says clients decide from the body), else from the HTTP status.
 */
export function makeApiError(res: ErrorResponse): ApiError {
  const secrets = [...(res.secrets ?? [])];
  let parsedJson: unknown;
  try {
    parsedJson = res.bodyText.length > 0 ? JSON.parse(res.bodyText) : undefined;
  } catch {
    parsedJson = undefined;
  }
  const parsed = ErrorBody.safeParse(parsedJson);
  let code: number;
  let serviceMessage: string;
  let details: ErrorDetail[] = [];
  if (parsed.success) {
    code = parsed.data.code;
    serviceMessage = parsed.data.message || `HTTP ${res.httpStatus}`;
    details = parsed.data.details ?? [];
  } else {
    code = codeForHttpStatus(res.httpStatus);
    const excerpt = res.bodyText.replace(/\s+/g, " ").trim().slice(0, 200);
    serviceMessage = excerpt ? `HTTP ${res.httpStatus}: ${excerpt}` : `HTTP ${res.httpStatus}`;
  }
  const Class = CLASS_BY_CODE[code] ?? ApiError;
  // Details are echoed back verbatim into the error object, so they are redacted too.
  const safeDetails =
    secrets.length > 0 ? (JSON.parse(redact(JSON.stringify(details), secrets)) as ErrorDetail[]) : details;
  return new Class({
    method: res.method,
    path: redact(res.path, secrets),
    httpStatus: res.httpStatus,
    code,
    serviceMessage: redact(serviceMessage, secrets),
    details: safeDetails,
    requestId: res.requestId,
    retryAfterMs: res.retryAfterMs,
  });
}
