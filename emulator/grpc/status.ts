/**
 * An `ApiFailure` as the gRPC status the real service sends: its code (already the gRPC code; grpc-gateway maps
 * it to the REST face's HTTP status), its message as `grpc-message`, and `grpc-status-details-bin`: the binary
 * `google.rpc.Status` of the very AIP-193 body the REST face writes (ErrorInfo, BadRequest, PreconditionFailure
 * as `Any`), so both faces carry the same details by construction.
 */
import { Metadata, type StatusObject } from "@grpc/grpc-js";
import type { ApiFailure } from "../errors";
import type { JsonValue, MessageCodec } from "./json";

export const STATUS_DETAILS_KEY = "grpc-status-details-bin";

export function grpcStatus(failure: ApiFailure, statusCodec: MessageCodec): Partial<StatusObject> {
  const metadata = new Metadata();
  metadata.set(STATUS_DETAILS_KEY, Buffer.from(statusCodec.encode(failure.toBody() as unknown as JsonValue)));
  return { code: failure.code, details: failure.message, metadata };
}
