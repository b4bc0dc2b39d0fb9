/**
 * A Java project on the generated Java SDK, as templates/java makes one: its pom.xml (the template's, with another
 * main class) and the SDK as a Maven repository folder in the project's maven/, built from native-sdks/java by
 * scripts/release.js's own step once per run.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { oncePerRun, repoRoot } from "./harness";

const { javaSdk } = require("../../scripts/release.js") as {
  javaSdk(out: string, mtime: number): string;
};

/** native-sdks/java as the release's Maven repository folder, built once per run. Its path. */
export function javaSdkRepository(): string {
  return oncePerRun("java-sdk", () => {
    const runDir = process.env["PULUMI_PLATFORM_E2E_RUN_DIR"];
    const out = runDir ? path.join(runDir, "java-sdk") : fs.mkdtempSync(path.join(os.tmpdir(), "java-sdk-"));
    fs.mkdirSync(out, { recursive: true });
    return javaSdk(out, 315532800);
  });
}

/**
 * Drops the SDK's copy in ~/.m2 (Maven keeps what it took from a project's maven/ there, and the SDK keeps its
 * version from one commit to the next), so the next build takes the project's.
 */
export function forgetJavaSdk(): void {
  fs.rmSync(path.join(os.homedir(), ".m2", "repository", "com", "pulumiplatform"), {
    recursive: true,
    force: true,
  });
}

/** Makes `dir` a Maven project of templates/java's pom.xml whose program is the class `mainClass`. */
export function writeJavaProject(dir: string, name: string, mainClass: string): void {
  const pom = fs
    .readFileSync(path.join(repoRoot, "templates", "java", "pom.xml"), "utf8")
    .replace("${PROJECT}", name)
    .replace("<mainClass>myproject.App</mainClass>", `<mainClass>${mainClass}</mainClass>`);
  if (!pom.includes(`<mainClass>${mainClass}</mainClass>`))
    throw new Error("templates/java/pom.xml: no mainClass");
  fs.writeFileSync(path.join(dir, "pom.xml"), pom);
  fs.cpSync(javaSdkRepository(), path.join(dir, "maven"), { recursive: true });
  forgetJavaSdk();
}
