/**
 * Property values between the engine's wire form (google.protobuf.Struct with Pulumi's special objects) and the
 * plain values the shared provider code takes, and back.
 *
 * The engine marks a secret as `{ <sig>: <secret sig>, value }` and a resource reference as `{ <sig>: <ref sig>,
 * urn, id }`; an unknown value (a preview) is a fixed string, the same sentinel the shared code already knows
 * (provider/core/check UNKNOWN), so unknowns pass through untouched. Secrets are unwrapped before the shared code
 * sees them, and the top-level properties that held one are remembered, so what goes back is wrapped again:
 * with `acceptSecrets` the engine trusts the provider to keep secrets secret.
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

/** The key every special object carries, and its values (sdk/go/common/resource/sig). */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const RESOURCE_REFERENCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";
export const OUTPUT_VALUE_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4";

export type Props = Record<string, unknown>;

/** Plain properties, and the names of the top-level ones that were (or held) secrets. */
export interface Unwrapped {
  props: Props;
  secrets: Set<string>;
}

function isObject(value: unknown): value is Props {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One value without its wrappers; `found` is told when a secret was inside. */
function unwrap(value: unknown, found: () => void): unknown {
  if (Array.isArray(value)) return value.map((item) => unwrap(item, found));
  if (!isObject(value)) return value;
  switch (value[SIG_KEY]) {
    case SECRET_SIG:
      found();
      return unwrap(value.value, found);
    case RESOURCE_REFERENCE_SIG:
      // A custom resource stands for its id (what the programs' uid inputs hold), a component for its urn.
      return typeof value.id === "string" && value.id !== "" ? value.id : value.urn;
    case OUTPUT_VALUE_SIG:
      if (value.secret === true) found();
      return "value" in value ? unwrap(value.value, found) : undefined;
  }
  const out: Props = {};
  for (const [key, inner] of Object.entries(value)) out[key] = unwrap(inner, found);
  return out;
}

/** The plain properties of a Struct (absent: none). */
export function fromStruct(struct: Struct | undefined): Unwrapped {
  const raw = (struct?.toJavaScript() ?? {}) as Props;
  const props: Props = {};
  const secrets = new Set<string>();
  for (const [key, value] of Object.entries(raw)) {
    props[key] = unwrap(value, () => secrets.add(key));
  }
  return { props, secrets };
}

/** True when the Struct was absent or empty (e.g. a Read for `pulumi import`). */
export function isEmptyStruct(struct: Struct | undefined): boolean {
  return struct === undefined || struct.getFieldsMap().getLength() === 0;
}

/** Drops undefined members at every depth: a Struct has no place for them. */
function defined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : defined(item)));
  if (!isObject(value)) return value;
  const out: Props = {};
  for (const [key, inner] of Object.entries(value)) if (inner !== undefined) out[key] = defined(inner);
  return out;
}

/** A Struct of `props`, the properties named in `secrets` wrapped as secrets. */
export function toStruct(props: Props, secrets: Iterable<string> = []): Struct {
  const out = defined(props) as Props;
  for (const key of secrets) {
    if (key in out) out[key] = { [SIG_KEY]: SECRET_SIG, value: out[key] };
  }
  return Struct.fromJavaScript(out as Parameters<typeof Struct.fromJavaScript>[0]);
}
