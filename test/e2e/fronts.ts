/**
 * What the access e2e files (group-access, access-partial) do alike with a front, the same program in one language
 * (TypeScript on the dynamic provider, YAML on the native plugin): make its stack on the emulator.
 */
import type { Emulator } from "../../emulator";
import { PulumiStack } from "./harness";

/** A front's program, and how its stack is made ready to run (its package or the plugin installed). */
export interface FrontProgram {
  programDir(): string;
  prepare(stack: PulumiStack): Promise<void>;
}

/** A stack of the front's program on `emulator` (its URL in config, its token a secret), prepared. */
export async function frontStack(front: FrontProgram, emulator: Emulator): Promise<PulumiStack> {
  const stack = await PulumiStack.create({
    programDir: front.programDir(),
    config: { "platform:apiUrl": emulator.url },
    secrets: { "platform:token": emulator.token },
    env: { PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
  });
  await front.prepare(stack);
  return stack;
}
