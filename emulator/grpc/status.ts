/**
 * An `ApiFailure` as the gRPC status the real service sends: its code (already the gRPC code; grpc-gateway maps
 * it to the REST face's HTTP status), its message as `grpc-message`, and `grpc-status-details-bin`: the binary
 * `google.rpc.Status` of the very AIP-193 body the REST face writes (ErrorInfo, BadRequest, PreconditionFailure
 * as `Any`), so both faces carry the same details by construction.
 */
import type { ApiFailure } from "../errors";
import type { JsonValue, MessageCodec } from "./json";

export const STATUS_DETAILS_KEY = "grpc-status-details-bin";

export interface GrpcStatus {
  code: number;
  message: string;
  /** The binary google.rpc.Status, sent base64-encoded as `grpc-status-details-bin`. */
  details: Uint8Array;
}

export function grpcStatus(failure: ApiFailure, statusCodec: MessageCodec): GrpcStatus {
  const details = statusCodec.encode(failure.toBody() as unknown as JsonValue);
  return { code: failure.code, message: failure.message, details };
}

/** The gRPC status codes the face answers with itself (beside an ApiFailure's own). */
export const Code = {
  OK: 0,
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
} as const;

/** A failure of the protocol itself (before or beside any route): a status with no AIP-193 details. */
export class GrpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
