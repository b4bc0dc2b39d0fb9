/**
 * The emulator's one error type and the one adapter that turns it into an AIP-193 body.
 *
 * Handlers throw `ApiFailure` (built by the helpers below); the server's error handler is the only place
 * that writes an error response.
 */
import type { ZodError } from "zod";
import {
  BAD_REQUEST_TYPE,
  ERROR_INFO_TYPE,
  GrpcCode,
  HTTP_STATUS_BY_CODE,
  MESSAGE_PREFIX_BY_CODE,
  PRECONDITION_FAILURE_TYPE,
  REASON_BY_CODE,
  type ErrorBody,
  type FieldViolation,
  type PreconditionViolation,
} from "../sdk/schemas/common";

/** The type URL of google.rpc.RetryInfo (google/rpc/error_details.proto), as an `Any` names it. */
export const RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";

/** ErrorInfo.domain: `iam.<service_domain>`. */
export const ERROR_DOMAIN = "iam.platform.local";

export class ApiFailure extends Error {
  constructor(
    readonly code: number,
    readonly detail: string,
    readonly fieldViolations: FieldViolation[] = [],
    readonly preconditionViolations: PreconditionViolation[] = [],
    /** Overrides the gRPC-mapped HTTP status (405 for a method a path lacks, a REST-only answer). */
    readonly httpStatus?: number,
  ) {
    super(`${MESSAGE_PREFIX_BY_CODE[code] ?? "Error:"} ${detail}`);
  }

  get status(): number {
    return this.httpStatus ?? HTTP_STATUS_BY_CODE[this.code] ?? 500;
  }

  /**
   * The retry hint, in seconds, when a repeat may succeed: an unavailable service (14) at once. Both faces carry it
   * from here: `Retry-After` on REST, and on both a `google.rpc.RetryInfo` detail (grpc-status-details-bin on gRPC).
   */
  get retryDelaySeconds(): number | undefined {
    return this.code === GrpcCode.UNAVAILABLE ? 0 : undefined;
  }

  toBody(): ErrorBody {
    const details: ErrorBody["details"] = [
      { "@type": ERROR_INFO_TYPE, reason: REASON_BY_CODE[this.code] ?? "UNKNOWN", domain: ERROR_DOMAIN },
    ];
    if (this.fieldViolations.length > 0)
      details.push({ "@type": BAD_REQUEST_TYPE, fieldViolations: this.fieldViolations });
    if (this.preconditionViolations.length > 0) {
      details.push({ "@type": PRECONDITION_FAILURE_TYPE, violations: this.preconditionViolations });
    }
    const retryDelay = this.retryDelaySeconds;
    if (retryDelay !== undefined) details.push({ "@type": RETRY_INFO_TYPE, retryDelay: `${retryDelay}s` });
    return { code: this.code, message: this.message, details };
  }
}

export function invalidArgument(
  detail: string,
  violations: FieldViolation[] = [],
  httpStatus?: number,
): ApiFailure {
  return new ApiFailure(GrpcCode.INVALID_ARGUMENT, detail, violations, [], httpStatus);
}

/** A single bad field: the message names it and the BadRequest detail carries it. */
export function badField(field: string, description: string): ApiFailure {
  return invalidArgument(`${field}: ${description}`, [{ field, description }]);
}

export function notFound(what: string): ApiFailure {
  return new ApiFailure(GrpcCode.NOT_FOUND, what);
}

export function alreadyExists(what: string): ApiFailure {
  return new ApiFailure(GrpcCode.ALREADY_EXISTS, what);
}

export function permissionDenied(what: string): ApiFailure {
  return new ApiFailure(GrpcCode.PERMISSION_DENIED, what);
}

export function unauthenticated(what: string): ApiFailure {
  return new ApiFailure(GrpcCode.UNAUTHENTICATED, what);
}

export function failedPrecondition(detail: string, violations: PreconditionViolation[] = []): ApiFailure {
  return new ApiFailure(GrpcCode.FAILED_PRECONDITION, detail, [], violations);
}

export function unimplemented(what: string): ApiFailure {
  return new ApiFailure(GrpcCode.UNIMPLEMENTED, what);
}

export function internal(what: string): ApiFailure {
  return new ApiFailure(GrpcCode.INTERNAL, what);
}

/** zod issues → BadRequest fieldViolations naming exactly the failing fields (`claimMatch.issuer`). */
export function fromZod(error: ZodError, input: unknown): ApiFailure {
  const violations: FieldViolation[] = [];
  for (const issue of error.issues) {
    const field = issue.path.map(String).join(".") || "body";
    const present = valueAt(input, issue.path) !== undefined;
    let description = issue.message;
    if (issue.code === "invalid_type" && present) description = `${field} must be of type ${issue.expected}`;
    else if (issue.code === "invalid_type" && !present) description = `${field} is required`;
    else if (!description.includes(field.split(".").pop() ?? field)) description = `${field}: ${description}`;
    if (!violations.some((v) => v.field === field)) violations.push({ field, description });
  }
  return invalidArgument(violations.map((v) => v.description).join("; "), violations);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cursor: unknown = input;
  for (const key of path) {
    // The path's names come from the request: an own member only, never one of a prototype's.
    if (cursor === null || typeof cursor !== "object" || !Object.hasOwn(cursor, key)) return undefined;
    cursor = (cursor as Record<PropertyKey, unknown>)[key];
  }
  return cursor;
}
