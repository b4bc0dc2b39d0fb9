/**
 * Wire shapes shared by every resource: uids, timestamps, list envelopes and the AIP-193 error body.
 *
 * The resources' shapes come from the OpenAPI document (./openapi.generated, written by `npm run wire`);
 * the modules beside this one compose them with the spec's rules (../rules). The client parses responses
 * with them and the emulator validates requests with them. Response schemas are lenient: unknown members
 * are dropped, never rejected, so additive API changes break nobody.
 */
import { z } from "zod";

/** One 16-hex segment of a child uid. */
export const UID_SEGMENT_PATTERN = /^[0-9a-f]{16}$/;

/**
 * A group, identity, role, binding... uid as the real service mints them: a root of 40 hex characters
 * (organizations, root-level users, built-in roles) or of 16 (older roots), then child segments of 16 hex
 * characters, each joined by `/`. Never stricter than the service: any uid it can produce passes.
 */
export const UIDP_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{16})(?:\/[0-9a-f]{16})*$/;

/** A built-in role's uid: 40 hex characters, no slashes. */
export const BUILTIN_ROLE_UID_PATTERN = /^[0-9a-f]{40}$/;

export const Uidp = z
  .string()
  .regex(
    UIDP_PATTERN,
    "must be a uid: a root of 40 (or 16) hex characters, then 16-hex segments, joined by '/'",
  );

/** A role uid may be a custom role's uidp or a built-in role's 40-hex uid. */
export const RoleUid = z
  .string()
  .refine(
    (s) => UIDP_PATTERN.test(s) || BUILTIN_ROLE_UID_PATTERN.test(s),
    "must be a role uid: a uidp or a 40-hex built-in role uid",
  );

/** The name of an object other than a group (whose name has its own rule, ../rules): on create, required and not empty. */
export const ObjectName = z.string({ error: "name is required" }).min(1, "name must not be empty");

/** An object's name on update: may be left out, but not emptied. */
export const ObjectNameUpdate = z.string().min(1, "name must not be empty").optional();

/** RFC 3339 timestamp in UTC with milliseconds, e.g. 2026-01-02T03:04:05.678Z. */
export const Timestamp = z.string();

/**
 * totalCount is serialized as a string holding an integer. Parsed to a number for callers.
 */
export const TotalCount = z
  .union([z.string(), z.number()])
  .transform((v) => (typeof v === "number" ? v : Number.parseInt(v, 10)))
  .refine((n) => Number.isFinite(n), "totalCount must hold an integer");

/**
 * The envelope of every v2 list: `{ <plural>: T[], nextPageToken?, totalCount?, skipped? }`.
 * `items` is the parsed array whatever the plural member is called.
 */
export function listEnvelope<T extends z.ZodTypeAny, K extends string>(plural: K, item: T) {
  return z
    .object({
      [plural]: z.array(item).optional(),
      nextPageToken: z.string().optional(),
      totalCount: TotalCount.optional(),
      skipped: z.number().int().optional(),
    } as Record<K | "nextPageToken" | "totalCount" | "skipped", z.ZodTypeAny>)
    .transform((raw: Record<string, unknown>) => ({
      items: ((raw[plural] as z.infer<T>[] | undefined) ?? []) as z.infer<T>[],
      nextPageToken: (raw.nextPageToken as string | undefined) || undefined,
      totalCount: raw.totalCount as number | undefined,
      skipped: (raw.skipped as number | undefined) ?? 0,
    }));
}

/** A parsed page, whatever the resource. */
export interface ListPage<T> {
  items: T[];
  /** Absent on the last page. */
  nextPageToken?: string | undefined;
  /** Total matching results across all pages. */
  totalCount?: number | undefined;
  /** Echo of the `skip` parameter. */
  skipped: number;
}

// ---- AIP-193 errors -------------------------------------------------------------------------

export const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";
export const BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest";
export const PRECONDITION_FAILURE_TYPE = "type.googleapis.com/google.rpc.PreconditionFailure";

export const FieldViolation = z.object({ field: z.string(), description: z.string() });
export type FieldViolation = z.infer<typeof FieldViolation>;

export const PreconditionViolation = z.object({
  type: z.string(),
  subject: z.string().optional(),
  description: z.string(),
});
export type PreconditionViolation = z.infer<typeof PreconditionViolation>;

export const ErrorInfoDetail = z.object({
  "@type": z.literal(ERROR_INFO_TYPE),
  reason: z.string(),
  domain: z.string(),
  metadata: z.record(z.string(), z.string()).optional(),
});
export const BadRequestDetail = z.object({
  "@type": z.literal(BAD_REQUEST_TYPE),
  fieldViolations: z.array(FieldViolation),
});
export const PreconditionFailureDetail = z.object({
  "@type": z.literal(PRECONDITION_FAILURE_TYPE),
  violations: z.array(PreconditionViolation),
});
/** Any detail: the three known kinds, or an unknown one kept as it came. */
export const ErrorDetail = z.union([
  ErrorInfoDetail,
  BadRequestDetail,
  PreconditionFailureDetail,
  z.looseObject({ "@type": z.string() }),
]);
export type ErrorDetail = z.infer<typeof ErrorDetail>;

export const ErrorBody = z.object({
  code: z.number().int(),
  message: z.string(),
  details: z.array(ErrorDetail).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** gRPC status codes used by the API. */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

/** The usual gRPC-to-HTTP mapping (google.rpc.Code). */
export const HTTP_STATUS_BY_CODE: Record<number, number> = {
  0: 200,
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

/** The message prefix of each code, as the spec's error section shows for 3 and 9. */
export const MESSAGE_PREFIX_BY_CODE: Record<number, string> = {
  3: "Invalid argument:",
  5: "Not found:",
  6: "Already exists:",
  7: "Permission denied:",
  8: "Resource exhausted:",
  9: "Precondition failed:",
  12: "Unimplemented:",
  13: "Internal:",
  14: "Unavailable:",
  16: "Unauthenticated:",
};

/** Reason names for ErrorInfo, by code. */
export const REASON_BY_CODE: Record<number, string> = {
  3: "INVALID_ARGUMENT",
  5: "NOT_FOUND",
  6: "ALREADY_EXISTS",
  7: "PERMISSION_DENIED",
  8: "RESOURCE_EXHAUSTED",
  9: "FAILED_PRECONDITION",
  12: "UNIMPLEMENTED",
  13: "INTERNAL",
  14: "UNAVAILABLE",
  16: "UNAUTHENTICATED",
};
