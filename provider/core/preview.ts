/**
 * What a preview shows a resource's state will be, for a front that previews creates and updates itself (the
 * native plugin; the dynamic-provider host does not run previews). Derived from the declaration: what the program
 * gives is known, what only the service sets is unknown until it has.
 */
import { UNKNOWN } from "./check";
import type { ResourceDeclaration } from "./declaration";
import { diffFields } from "./diff";

type Props = Record<string, unknown>;

/** A create: the program's inputs, and every other property of the resource unknown. */
export function previewCreate(declaration: ResourceDeclaration, inputs: Props): Props {
  const outputs: Props = { ...inputs };
  for (const key of declaration.properties) if (outputs[key] === undefined) outputs[key] = UNKNOWN;
  return outputs;
}

/**
 * An update: the state with the program's new values. What the service will make of a field the program drops
 * (e.g. a description read back as "") is known only after the update. `changedFields` is the update's mask, from
 * the diff the engine asked for just before (the plugin passes it on, so a preview computes one diff); without it,
 * the diff is computed here.
 */
export function previewUpdate(
  declaration: ResourceDeclaration,
  olds: Props,
  news: Props,
  changedFields: readonly string[] = diffFields(olds, news, declaration.fields).changedFields,
): Props {
  const outputs: Props = { ...olds, profile: undefined, adopt: undefined, ...news };
  for (const key of changedFields) if (news[key] === undefined) outputs[key] = UNKNOWN;
  return outputs;
}
