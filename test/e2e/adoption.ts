/**
 * What the adoption end-to-end files share (adopt.e2e: docs/adopting.md "Bring an existing organization";
 * state-first.e2e: its "State-first" section): a TypeScript project of the fixtures set up as a user's
 * `npm install pulumi-platform pulumi-platform-native` would (the generated SDK in node_modules, `platform-import`
 * on node_modules/.bin), the plugin's tarball, an emulator holding an object of every kind, fresh stacks of the
 * project with the plugin installed and the program emptied, and the resources a stack holds.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { everyKind, type EveryKind } from "../commands/fixtures";
import { buildOncePerRun, PulumiStack, repoRoot, type StackState } from "./harness";
import { buildPluginTarball, installGeneratedSdk, installPlugin } from "./plugin-tarball";

export class AdoptionProject {
  private readonly stacks: PulumiStack[] = [];

  private constructor(
    /** The project's directory (a fixture: Pulumi.yaml and package.json). */
    readonly programDir: string,
    /** The files the documents' commands write there, the program (index.ts) first; removed between stacks. */
    readonly written: readonly string[],
    /** The project's node_modules/.bin, where `platform-import` is. */
    readonly bin: string,
    readonly tarball: string,
    readonly emulator: Emulator,
    /** An object of every kind in the emulator's organization, made by hand. */
    readonly objects: EveryKind,
  ) {}

  static async create(programDir: string, written: readonly string[]): Promise<AdoptionProject> {
    buildOncePerRun(); // platform-import is dist/'s
    installGeneratedSdk(programDir);
    const bin = path.join(programDir, "node_modules", ".bin");
    fs.mkdirSync(bin, { recursive: true });
    fs.rmSync(path.join(bin, "platform-import"), { force: true });
    fs.chmodSync(path.join(repoRoot, "dist/commands/import/cli.js"), 0o755);
    fs.symlinkSync(path.join(repoRoot, "dist/commands/import/cli.js"), path.join(bin, "platform-import"));
    const tarball = buildPluginTarball();
    const emulator = await startEmulator();
    const objects = await everyKind(emulator.client, emulator.orgUid);
    return new AdoptionProject(programDir, written, bin, tarball, emulator, objects);
  }

  /** A fresh stack of the project (removed by cleanup), the plugin installed, the program empty. */
  async freshStack(): Promise<PulumiStack> {
    return this.stackOf(this.programDir, () => {
      fs.writeFileSync(path.join(this.programDir, this.written[0]!), "export {};\n");
      for (const file of this.written.slice(1)) fs.rmSync(path.join(this.programDir, file), { force: true });
    });
  }

  /** A stack of another project directory (removed by cleanup), the plugin installed. */
  async stackOf(
    programDir: string,
    prepare: () => void = () => undefined,
    options: { env?: Record<string, string>; stackName?: string } = {},
  ): Promise<PulumiStack> {
    const stack = await PulumiStack.create({ programDir, ...options });
    this.stacks.push(stack);
    await installPlugin(stack, this.tarball);
    prepare();
    return stack;
  }

  /** The resources of the every-kind objects, as platformResources() lists them (the organization left out). */
  everyKindResources(): string[] {
    const o = this.objects;
    return [
      `platform:iam:Group ${o.group.uid}`,
      `platform:iam:Identity ${o.identity.uid}`,
      `platform:iam:Role ${o.role.uid}`,
      `platform:iam:RoleBinding ${o.binding.uid}`,
      `platform:iam:IdentityProvider ${o.idp.uid}`,
      `platform:iam:GroupInvite ${o.invite.uid}`,
      `platform:iam:AccountAssociation ${o.association.uid}`,
    ].sort();
  }

  /** Removes the stacks, the emulator, what the commands wrote and the project's node_modules. */
  async cleanup(): Promise<void> {
    for (const stack of this.stacks) await stack.cleanup();
    await this.emulator.close();
    for (const file of this.written) fs.rmSync(path.join(this.programDir, file), { force: true });
    fs.rmSync(path.join(this.programDir, "node_modules"), { recursive: true, force: true });
  }
}

/** The platform resources a stack holds, as "<type> <id>", sorted. */
export async function platformResources(stack: PulumiStack): Promise<string[]> {
  const { state } = await stack.exportState();
  return (state.deployment.resources ?? [])
    .filter((r) => r.type.startsWith("platform:iam:"))
    .map((r) => `${r.type} ${r.id}`)
    .sort();
}

/** What the program's run stamps on each resource it registers: where in the language host it came from. */
const STAMPED_BY_THE_RUN = ["sourcePosition", "stackTrace"];

/** A stack's resources by URN, without what the run stamps, each list of URNs sorted (the engine compares them so). */
export function comparable(state: StackState): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const resource of state.deployment.resources ?? []) {
    const kept = Object.fromEntries(
      Object.entries(resource).filter(([key]) => !STAMPED_BY_THE_RUN.includes(key)),
    );
    if (Array.isArray(kept["dependencies"]))
      kept["dependencies"] = [...(kept["dependencies"] as string[])].sort();
    const byProperty = kept["propertyDependencies"] as Record<string, string[]> | undefined;
    if (byProperty !== undefined)
      kept["propertyDependencies"] = Object.fromEntries(
        Object.entries(byProperty).map(([key, urns]) => [key, [...urns].sort()]),
      );
    out[resource.urn] = kept;
  }
  return out;
}

/** How many times a `pulumi -v=7 --logtostderr` command wrote the checkpoint (the file backend logs each write). */
export function checkpointWrites(stderr: string): number {
  return (stderr.match(/Saved stack \S+ checkpoint to/g) ?? []).length;
}
