/**
 * Small helpers that turn the generated wire shapes (./openapi.generated) into request bodies and response shapes.
 */
import type { z } from "zod";

/** The members of `object` named in `keys` (a create or update body starts from the writable members). */
export function pick<S extends z.ZodRawShape, K extends keyof S & string>(
  object: z.ZodObject<S>,
  keys: readonly K[],
): z.ZodObject<Pick<S, K>> {
  const mask: Record<string, true> = Object.fromEntries(keys.map((key) => [key, true]));
  return (object as z.ZodObject).pick(mask) as unknown as z.ZodObject<Pick<S, K>>;
}

/** `list` without `excluded`, in the same order. */
export function without<T extends string, E extends string>(
  list: readonly T[],
  excluded: readonly E[],
): readonly Exclude<T, E>[] {
  return list.filter((item): item is Exclude<T, E> => !(excluded as readonly string[]).includes(item));
}

/** `schema` with the OpenAPI description of `object`'s member `key`, so replacing a member keeps its doc. */
export function describedAs<T extends z.ZodType>(schema: T, object: z.ZodObject, key: string): T {
  const member = object.shape[key] as z.ZodType | undefined;
  const inner = member && "unwrap" in member ? ((member as z.ZodOptional).unwrap() as z.ZodType) : member;
  const description = inner?.description ?? member?.description;
  return description === undefined ? schema : schema.describe(description);
}
