/**
 * The default mapping between a resource's declaration and the API's wire, so a field declared once is sent by
 * create, sent by update when it changed, and read back from the live object, with no list of fields anywhere else:
 *
 *   - create body: every declared API input but the ones sent in the path (`inPath`), as `{ [key]: inputs[key] }`;
 *   - update body for a mask: the same, for the masked fields only, an unset one as its declared default ("" for a
 *     description) so the PATCH clears it;
 *   - read-back (`inputsOf`): every declared API input from the live object's member of the same name, an unset
 *     one as its declared default.
 *
 * A resource overrides a field only where the wire truly differs (a parent taken from the uid, OIDC settings
 * nested in an `oidc` block, a ttl computed from an expiry). The read overrides are typed so that a declared input
 * the API object has no member for MUST be mapped (see ReadOverrides): a field cannot be left out silently.
 */
import type { PROVIDER_INPUTS, ResourceDeclaration } from "./declaration";

type Props = Record<string, unknown>;

/** The API inputs of a resource's inputs `I` (not profile or adopt). */
export type ApiInputs<I> = Omit<I, (typeof PROVIDER_INPUTS)[number]>;
type ApiKey<I> = keyof ApiInputs<I> & string;

/** Every declared API input, each present (an unset one as undefined): what a full read-back returns. */
export type DeclaredInputs<I> = { [K in ApiKey<I>]-?: ApiInputs<I>[K] | undefined };

/**
 * How the live object `T` gives each input. An input that `T` has a member of the same name for is read from it by
 * default and may be overridden; one that `T` has no member for is REQUIRED here (a compile error otherwise).
 */
export type ReadOverrides<I, T> = {
  [K in Exclude<ApiKey<I>, keyof T>]-?: (object: T) => ApiInputs<I>[K & keyof ApiInputs<I>] | undefined;
} & {
  [K in Extract<ApiKey<I>, keyof T>]?: (object: T) => ApiInputs<I>[K & keyof ApiInputs<I>] | undefined;
};

/**
 * How an input goes into a request body, where not as `{ [key]: value }`: the members it adds. `mask` is the update
 * mask of an update and undefined at create. Several inputs may add the same member (an `oidc` block) alike.
 */
export type SendOverrides<I> = {
  [K in ApiKey<I>]?: (inputs: I, mask: readonly string[] | undefined) => Props;
};

/** What a resource says about its wire: only the fields where it differs from the declaration. */
export interface WireMapping<I, T> {
  read: ReadOverrides<I, T>;
  send?: SendOverrides<I>;
}

function withoutUndefined(value: Props): Props {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

function declaredDefault(declaration: ResourceDeclaration, key: string): unknown {
  const value = declaration.inputs[key]?.default;
  return Array.isArray(value) ? [...(value as readonly string[])] : value;
}

/**
 * A request's body: without `mask`, the create body (every declared API input that goes in a body); with it, the
 * update body for `mask`, the changed fields (exactly those fields). In declaration order either way.
 */
export function wireBody<I, T>(
  declaration: ResourceDeclaration,
  wire: WireMapping<I, T>,
  inputs: I,
  mask?: readonly string[],
): Props {
  const out: Props = {};
  for (const key of declaration.bodyInputs) {
    if (mask !== undefined && !mask.includes(key)) continue;
    const send = (wire.send as Record<string, SendOverrides<I>[ApiKey<I>]> | undefined)?.[key];
    if (send !== undefined) {
      Object.assign(out, send(inputs, mask));
      continue;
    }
    const value = (inputs as Props)[key];
    // An update sends an unset field as its default, so the mask clears what the program no longer sets.
    out[key] = mask !== undefined ? (value ?? declaredDefault(declaration, key)) : value;
  }
  return withoutUndefined(out);
}

/** The declared API inputs rebuilt from the live object; an unset one is its declared default. */
export function inputsFromObject<I, T>(
  declaration: ResourceDeclaration,
  wire: WireMapping<I, T>,
  object: T,
): DeclaredInputs<I> {
  const read = wire.read as Record<string, ((object: T) => unknown) | undefined>;
  return Object.fromEntries(
    declaration.apiInputs.map((key) => {
      const override = read[key];
      const value = override !== undefined ? override(object) : (object as Props)[key];
      return [key, value ?? declaredDefault(declaration, key)];
    }),
  ) as DeclaredInputs<I>;
}

/** The inputs whose read-back an override decides (the rest are the live object's members of the same name). */
export function readOverridden(wire: WireMapping<unknown, unknown>): readonly string[] {
  return Object.keys(wire.read);
}
