/**
 * The `pulumi new` templates (templates/<language>) say nothing of their own that the project says elsewhere: the
 * provider's config keys, their descriptions and which are secret come from CONFIG_SETTINGS; the version of the
 * plugin, its SDKs and the policy pack is package.json's; Pulumi's own SDK is asked for in the range each
 * generated SDK declares (Java's, the version the generated SDK's pom.xml names); Go's go.sum is the Go example's.
 * test/e2e/templates.e2e.test.ts runs them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { CONFIG_SETTINGS } from "../provider/core/config";

const root = path.join(__dirname, "..");
const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  version: string;
};
const languages = ["typescript", "python", "go", "yaml", "java"];
const read = (...parts: string[]) => fs.readFileSync(path.join(root, ...parts), "utf8");

/** The keys of a two-space YAML mapping that starts after the line `header` at indentation `indent`. */
function mappingAfter(lines: string[], header: RegExp, indent: number): Map<string, string[]> {
  const start = lines.findIndex((l) => header.test(l));
  const entries = new Map<string, string[]>();
  if (start < 0) return entries;
  let current: string[] | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "" || line.trim().startsWith("#")) continue;
    const depth = line.length - line.trimStart().length;
    if (depth < indent) break;
    if (depth === indent) {
      current = [];
      entries.set(line.trim().replace(/:$/, ""), current);
    } else {
      current?.push(line.trim());
    }
  }
  return entries;
}

describe.each(languages)("templates/%s", (language) => {
  const lines = read("templates", language, "Pulumi.yaml").split("\n");
  const templateConfig = mappingAfter(lines, /^ {2}config:$/, 4);
  const projectConfig = mappingAfter(lines, /^config:$/, 2);

  it("is a template: the project's name and description are pulumi new's, and it describes itself", () => {
    expect(lines).toContain("name: ${PROJECT}");
    expect(lines).toContain("description: ${DESCRIPTION}");
    expect(lines).toContain("template:");
    expect(lines.some((l) => /^ {2}description: /.test(l))).toBe(true);
    expect(fs.existsSync(path.join(root, "templates", language, "README.md"))).toBe(true);
  });

  it("asks for the organization, the repository, the audience, the API's URL and the token, as CONFIG_SETTINGS says", () => {
    expect([...templateConfig.keys()].sort()).toEqual(
      ["audience", "githubRepository", "organization", "platform:apiUrl", "platform:token"].sort(),
    );
    for (const [key, body] of templateConfig) {
      const description = body.find((l) => l.startsWith("description: "))?.slice("description: ".length);
      expect({ key, described: description !== undefined }).toEqual({ key, described: true });
      const secret = body.includes("secret: true");
      const setting = /^platform:(\w+)$/.exec(key)?.[1];
      if (setting === undefined) {
        // The program's own keys are declared in the project, so a missing one fails before the program runs.
        expect(projectConfig.get(key)).toEqual(["type: string"]);
        expect({ key, secret }).toEqual({ key, secret: false });
        continue;
      }
      expect(Object.keys(CONFIG_SETTINGS)).toContain(setting);
      const declared = CONFIG_SETTINGS[setting as keyof typeof CONFIG_SETTINGS] as {
        doc: string;
        secret?: boolean;
      };
      expect({ key, description, secret }).toEqual({
        key,
        description: declared.doc,
        secret: declared.secret === true,
      });
    }
  });

  it("names the plugin, its SDK and the policy pack at package.json's version only", () => {
    const dir = path.join(root, "templates", language);
    const mentions: string[] = [];
    const files = fs.readdirSync(dir, { recursive: true, encoding: "utf8" });
    for (const file of files.filter((f) => fs.statSync(path.join(dir, f)).isFile())) {
      const text = fs.readFileSync(path.join(dir, file), "utf8");
      const patterns = [
        /pulumi-resource-platform-v(\d+\.\d+\.\d+)/g,
        /pulumi-platform-native-(\d+\.\d+\.\d+)/g,
        /pulumi_platform_native(?:==|-)(\d+\.\d+\.\d+)/g,
        /pulumi-platform-policy-v(\d+\.\d+\.\d+)/g,
        /native-sdks\/go v(\d+\.\d+\.\d+)/g,
        /resource platform (\d+\.\d+\.\d+)/g,
        /<artifactId>platform<\/artifactId>\s*<version>(\d+\.\d+\.\d+)<\/version>/g,
      ];
      for (const pattern of patterns)
        for (const m of text.matchAll(pattern)) mentions.push(`${file}: ${m[1]}`);
    }
    expect(mentions.length).toBeGreaterThan(0);
    expect(mentions.filter((m) => !m.endsWith(`: ${version}`))).toEqual([]);
  });
});

describe("the templates' dependencies", () => {
  it("typescript: the SDK's tarball in the project, and @pulumi/pulumi in the range the SDK declares", () => {
    const manifest = JSON.parse(read("templates", "typescript", "package.json")) as {
      dependencies: Record<string, string>;
    };
    const sdk = JSON.parse(read("native-sdks", "nodejs", "package.json")) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies).toEqual({
      "@pulumi/pulumi": sdk.dependencies["@pulumi/pulumi"],
      "pulumi-platform-native": `file:pulumi-platform-native-${version}.tgz`,
    });
  });

  it("python: the wheel found beside requirements.txt, and pulumi in the range the SDK declares", () => {
    const requirements = read("templates", "python", "requirements.txt")
      .split("\n")
      .filter((l) => l.trim() !== "" && !l.startsWith("#"));
    const declared = /'(pulumi[<>=][^']*)'/.exec(read("native-sdks", "python", "setup.py"))?.[1];
    expect(declared).toBeDefined();
    expect(requirements).toEqual(["--find-links .", `pulumi_platform_native==${version}`, declared]);
  });

  it("java: the SDK from the project's maven/ folder at the release's version, Pulumi's Java SDK at the SDK's", () => {
    const pom = read("templates", "java", "pom.xml");
    const sdkPom = read("native-sdks", "java", "pom.xml");
    const dependency = (text: string, group: string, artifact: string) =>
      new RegExp(
        `<groupId>${group}</groupId>\\s*<artifactId>${artifact}</artifactId>\\s*<version>([^<]+)</version>`,
      ).exec(text)?.[1];
    expect(dependency(pom, "com\\.pulumiplatform", "platform")).toBe(version);
    expect(dependency(pom, "com\\.pulumi", "pulumi")).toBe(dependency(sdkPom, "com\\.pulumi", "pulumi"));
    expect(dependency(sdkPom, "com\\.pulumi", "pulumi")).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pom).toContain("<url>file://${project.basedir}/maven</url>");
    // Pulumi's Java host asks a program for its plugins by running another main class through these.
    expect(pom).toContain("<mainClass>${mainClass}</mainClass>");
    expect(pom).toContain("<commandlineArgs>${mainArgs}</commandlineArgs>");
  });

  it("go: the module at the release's version, Pulumi's Go SDK at the SDK's, and the Go example's go.sum", () => {
    const goMod = read("templates", "go", "go.mod");
    const sdkPulumi = /github\.com\/pulumi\/pulumi\/sdk\/v3 (v\S+)/.exec(
      read("native-sdks", "go", "go.mod"),
    )?.[1];
    expect(goMod).toContain(`github.com/pulumi-platform/native-sdks/go v${version}\n`);
    expect(goMod).toContain(`github.com/pulumi/pulumi/sdk/v3 ${sdkPulumi}\n`);
    expect(goMod).not.toContain("replace");
    expect(read("templates", "go", "go.sum")).toBe(read("examples", "go", "go.sum"));
  });
});
