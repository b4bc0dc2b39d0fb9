/**
 * An `ApiFailure` as the gRPC status the real service sends: its code (already the gRPC code; grpc-gateway maps
 * it to the REST face's HTTP status), its message as `grpc-message`, and `grpc-status-details-bin`: the binary
 * `google.rpc.Status` of the very AIP-193 body the REST face writes (ErrorInfo, BadRequest, PreconditionFailure
 * as `Any`), so both faces carry the same details by construction.
 */
import { HTTP_STATUS_BY_CODE } from "../../sdk/schemas/common";
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

/**
 * A failure of the protocol itself (before or beside any route): a status with no AIP-193 details. In the request
 * log as the HTTP status grpc-gateway maps its code to.
 */
export class GrpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }

  get httpStatus(): number {
    return HTTP_STATUS_BY_CODE[this.code] ?? 500;
  }
}
