/**
 * Messages to the engine's log from provider code, on both fronts: the engine starts the dynamic-provider host and
 * the native plugin alike with its own address as an argument, and serves a Log call there. What is logged shows in
 * the preview's output (under the resource when its URN is known), which is how a resource can say, at preview,
 * what its update will do beyond what the property diff shows.
 *
 * Outside the engine (tests, a program) there is no such argument and nothing is sent. Never log a credential.
 */
import type * as EngineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb";

/** The engine's address among the process's arguments (`127.0.0.1:<port>`), if it was started by the engine. */
export function engineAddress(argv: readonly string[] = process.argv): string | undefined {
  return argv.slice(2).find((arg) => /^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(arg));
}

let client: EngineGrpc.EngineClient | undefined;

/** Logs an informational message, under `urn` when given; never fails (a message is not worth a failed step). */
export function logInfo(message: string, urn?: string): Promise<void> {
  return log("INFO", message, urn);
}

/** Logs a warning (shown as one in the preview's output), under `urn` when given; never fails. */
export function logWarning(message: string, urn?: string): Promise<void> {
  return log("WARNING", message, urn);
}

/** Where tests read what would be logged (outside the engine nothing is sent). */
let capture: ((severity: "INFO" | "WARNING", message: string, urn?: string) => void) | undefined;

/** Tests: receive every message logged from now on (undefined: stop). */
export function captureLog(
  sink: ((severity: "INFO" | "WARNING", message: string, urn?: string) => void) | undefined,
): void {
  capture = sink;
}

async function log(severity: "INFO" | "WARNING", message: string, urn?: string): Promise<void> {
  capture?.(severity, message, urn);
  const address = engineAddress();
  if (address === undefined) return;
  try {
    // Loaded only inside the engine's processes.
    const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
    const engineGrpc = require("@pulumi/pulumi/proto/engine_grpc_pb") as typeof EngineGrpc;
    const enginePb =
      require("@pulumi/pulumi/proto/engine_pb") as typeof import("@pulumi/pulumi/proto/engine_pb");
    client ??= new engineGrpc.EngineClient(address, grpc.credentials.createInsecure());
    const request = new enginePb.LogRequest();
    request.setSeverity(enginePb.LogSeverity[severity]);
    request.setMessage(message);
    if (urn !== undefined) request.setUrn(urn);
    await new Promise<void>((resolve) => client!.log(request, () => resolve()));
  } catch {
    // The message is lost; the step goes on.
  }
}
