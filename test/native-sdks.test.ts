/**
 * The generated TypeScript SDK (native-sdks/nodejs, `npm run sdks`) compiles against the @pulumi/pulumi this
 * repository pins, with its own tsconfig (the repository's tsc projects leave generated code out). Whether
 * native-sdks/ is up to date with schema.json needs the engine: test/e2e/native-sdks.e2e.test.ts.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const repoRoot = path.resolve(__dirname, "..");

test("native-sdks/nodejs compiles against the pinned @pulumi/pulumi", () => {
  const tsc = require.resolve("typescript/bin/tsc");
  const result = spawnSync(
    process.execPath,
    [tsc, "-p", path.join(repoRoot, "native-sdks", "nodejs", "tsconfig.json"), "--noEmit"],
    { encoding: "utf8", timeout: 120_000 },
  );

  expect({ status: result.status, errors: result.stdout + result.stderr }).toEqual({ status: 0, errors: "" });
});

test("the generated package's names are not the dynamic package's or the API client's", () => {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(repoRoot, "native-sdks", "nodejs", "package.json"), "utf8"),
  ) as { name: string };
  const goMod = fs.readFileSync(path.join(repoRoot, "native-sdks", "go", "go.mod"), "utf8");

  expect(manifest.name).toBe("pulumi-platform-native");
  expect(goMod).toMatch(/^module github\.com\/pulumi-platform\/native-sdks\/go$/m);
});

test("the generated Python package is typed and says which plugin it needs", () => {
  const pkg = path.join(repoRoot, "native-sdks", "python", "pulumi_platform_native");
  const plugin = JSON.parse(fs.readFileSync(path.join(pkg, "pulumi-plugin.json"), "utf8")) as {
    resource: boolean;
    name: string;
  };

  expect(fs.existsSync(path.join(pkg, "py.typed"))).toBe(true);
  expect(plugin).toMatchObject({ resource: true, name: "platform" });
});

test("the generated Java SDK is a Maven project of its own coordinates that says which plugin it needs", () => {
  const java = path.join(repoRoot, "native-sdks", "java");
  const pom = fs.readFileSync(path.join(java, "pom.xml"), "utf8");
  const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8")) as {
    name: string;
    version: string;
    language: { java: { basePackage: string } };
  };
  const base = schema.language.java.basePackage;
  expect(pom).toMatch(
    new RegExp(
      `^  <groupId>${base}</groupId>\\n  <artifactId>${schema.name}</artifactId>\\n  <version>${schema.version}</version>$`,
      "m",
    ),
  );
  // No Gradle: the generator's build files are not written, the pom is.
  expect(fs.readdirSync(java).sort()).toEqual(["README.md", "pom.xml", "src"]);
  const resources = path.join(java, "src", "main", "resources", ...base.split("."), schema.name);
  const plugin = JSON.parse(fs.readFileSync(path.join(resources, "plugin.json"), "utf8")) as object;
  expect(plugin).toMatchObject({ resource: true, name: "platform", version: schema.version });
  expect(fs.readFileSync(path.join(resources, "version.txt"), "utf8")).toBe(schema.version);
  expect(
    fs.existsSync(
      path.join(java, "src", "main", "java", ...base.split("."), schema.name, "iam", "Group.java"),
    ),
  ).toBe(true);
});
