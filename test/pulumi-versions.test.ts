/**
 * Which Pulumi the packages work with is said once: package.json's caret range for @pulumi/pulumi, `^3.x.y`, from
 * the oldest version tested. Everything a user's program shares with Pulumi repeats that floor as a range, so a
 * project on any newer 3.x keeps one copy of each SDK: the policy pack's package.json, the examples', the
 * templates', the generated SDKs (npm `^3.x.y`, PyPI `pulumi>=3.x.y,<4.0.0`, the Go module's minimum
 * `sdk/v3 v3.x.y`, which is the Go SDK our language hosts are built against), and the oldest engine
 * scripts/build-engine.sh builds.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { oldestPulumiVersion, packageManifest, PULUMI_JAVA_VERSION } from "../provider/schema";

const root = path.resolve(__dirname, "..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");
const readJson = (file: string) => JSON.parse(read(file)) as Record<string, Record<string, string>>;

const oldest = oldestPulumiVersion();

test("package.json names the oldest Pulumi as a caret range, and the newest it is tested with in the lock", () => {
  expect(packageManifest().dependencies["@pulumi/pulumi"]).toBe(`^${oldest}`);
  const lock = readJson("package-lock.json") as unknown as {
    packages: Record<string, { version: string }>;
  };
  const locked = lock.packages["node_modules/@pulumi/pulumi"]!.version;
  const [major, minor] = locked.split(".").map(Number);
  expect(major).toBe(3);
  expect(minor).toBeGreaterThanOrEqual(Number(oldest.split(".")[1]));
});

test("a range that is not a caret from a 3.x version is refused, naming the field", () => {
  const manifest = { ...packageManifest(), dependencies: { "@pulumi/pulumi": "3.248.0" } };
  expect(() => oldestPulumiVersion(manifest)).toThrow(/@pulumi\/pulumi must be a caret range \^3\.x\.y/);
  manifest.dependencies["@pulumi/pulumi"] = ">=3.248.0";
  expect(() => oldestPulumiVersion(manifest)).toThrow(/not '>=3\.248\.0'/);
});

test.each([
  ["policy/package.json", "@pulumi/pulumi"],
  ["examples/quickstart/package.json", "@pulumi/pulumi"],
  ["examples/access/package.json", "@pulumi/pulumi"],
  ["native-sdks/nodejs/package.json", "@pulumi/pulumi"],
  ["templates/typescript/package.json", "@pulumi/pulumi"],
])("%s depends on %s as ^oldest", (file, name) => {
  expect(readJson(file)["dependencies"]![name]).toBe(`^${oldest}`);
});

test("the policy pack shares @pulumi/policy with the repository as a caret range", () => {
  const range = readJson("package.json")["devDependencies"]!["@pulumi/policy"]!;
  expect(range).toMatch(/^\^1\.\d+\.\d+$/);
  expect(readJson("policy/package.json")["dependencies"]!["@pulumi/policy"]).toBe(range);
});

test("the generated Python SDK, the Python example and template require pulumi from the oldest up to 4", () => {
  expect(read("native-sdks/python/setup.py")).toContain(`'pulumi>=${oldest},<4.0.0'`);
  expect(read("templates/python/requirements.txt")).toMatch(
    new RegExp(`^pulumi>=${oldest.replace(/\./g, "\\.")},<4\\.0\\.0$`, "m"),
  );
  expect(read("examples/python/requirements.txt")).toMatch(
    new RegExp(`^pulumi>=${oldest.replace(/\./g, "\\.")},<4\\.0\\.0$`, "m"),
  );
});

test("the Go SDK and our language hosts need the oldest Go SDK (a minimum, as go.mod's requirements are)", () => {
  expect(read("native-sdks/go/go.mod")).toMatch(
    new RegExp(`^require github\\.com/pulumi/pulumi/sdk/v3 v${oldest.replace(/\./g, "\\.")}$`, "m"),
  );
  for (const file of ["examples/go/go.mod", "templates/go/go.mod"])
    expect(read(file)).toMatch(
      new RegExp(`github\\.com/pulumi/pulumi/sdk/v3 v${oldest.replace(/\./g, "\\.")}\\n`),
    );
  const hosts = read("scripts/engine/langhost/go.mod");
  for (const module of ["pkg", "sdk"])
    expect(hosts).toMatch(
      new RegExp(`github\\.com/pulumi/pulumi/${module}/v3 v${oldest.replace(/\./g, "\\.")}\\n`),
    );
});

test("the generated Java SDK depends on the Java SDK of the pulumi-java whose host and generator we build", () => {
  const built = /PULUMI_JAVA_VERSION:-(\d+\.\d+\.\d+)\}/.exec(read("scripts/build-engine.sh"))?.[1];
  expect(built).toBeDefined();
  expect(PULUMI_JAVA_VERSION).toBe(built);
  expect(readJson("schema.json")["language"]!["java"]).toMatchObject({
    dependencies: { "com.pulumi:pulumi": built },
  });
  expect(read("native-sdks/java/pom.xml")).toMatch(
    new RegExp(`<artifactId>pulumi</artifactId>\\s*<version>${built!.replace(/\./g, "\\.")}</version>`),
  );
});
