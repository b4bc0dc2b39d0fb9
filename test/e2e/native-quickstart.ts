/**
 * The quick start on the native plugin, as native-quickstart.e2e and migrate.e2e run it: examples/quickstart's
 * program with only its import line changed (`pulumi-platform` -> `pulumi-platform-native`), written into
 * fixtures/native-quickstart beside the generated TypeScript SDK (compiled into its node_modules), against an
 * emulator seeded as the quick start expects, on a stack with the plugin installed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { installLocalPackage, repoRoot, type PulumiStack } from "./harness";
import { installGeneratedSdk, pluginStack } from "./plugin-tarball";

export const programDir = path.join(repoRoot, "test/e2e/fixtures/native-quickstart");

const DYNAMIC_IMPORT = 'import * as platform from "pulumi-platform";';
export const NATIVE_IMPORT = 'import * as platform from "pulumi-platform-native";';

/** The quick start's program, on the dynamic package. */
export const quickstartProgram = fs.readFileSync(path.join(repoRoot, "examples/quickstart/index.ts"), "utf8");

/** The quick start's program on the generated SDK: the one line changed. */
export const nativeProgram = quickstartProgram.replace(DYNAMIC_IMPORT, NATIVE_IMPORT);

/** Writes the project's program. */
export function writeProgram(program: string): void {
  fs.writeFileSync(path.join(programDir, "index.ts"), program);
}

/**
 * Sets the project up with `program` (and the dynamic package installed too when asked) and a stack of it; the
 * stack is destroyed and removed, the emulator closed and the project emptied by the returned cleanup.
 */
export async function nativeQuickstart(
  program: string,
  options: { dynamicPackage?: boolean } = {},
): Promise<{ emulator: Emulator; stack: PulumiStack; cleanup: () => Promise<void> }> {
  if (nativeProgram === quickstartProgram)
    throw new Error(`examples/quickstart no longer has ${DYNAMIC_IMPORT}`);
  writeProgram(program);
  if (options.dynamicPackage) installLocalPackage(programDir, { build: false });
  installGeneratedSdk(programDir);
  const emulator = await startEmulator({ seed: path.join(repoRoot, "examples/quickstart/seed.json") });
  let stack: PulumiStack;
  try {
    stack = await pluginStack(programDir, emulator);
  } catch (error) {
    await emulator.close();
    throw error;
  }
  const cleanup = async () => {
    await stack.destroy({ allowFailure: true });
    await stack.cleanup();
    await emulator.close();
    fs.rmSync(path.join(programDir, "node_modules"), { recursive: true, force: true });
    fs.rmSync(path.join(programDir, "index.ts"), { force: true });
  };
  return { emulator, stack, cleanup };
}
