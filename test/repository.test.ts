/**
 * The repository stands alone: a contributor's fresh clone, with nothing beside it, passes `npm test`. So no tracked
 * file may read the steering folder beside the checkout or a machine's absolute workspace path; the
 * API's documents live in spec/.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(__dirname, "..");

function trackedTextFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0");
  return listed.filter((file) => file !== "" && existsSync(join(root, file)));
}

describe("the repository stands alone", () => {
  it("keeps the product spec and the OpenAPI document in spec/", () => {
    for (const file of ["README.md", "platform-api-v2beta1.md", "openapi-v2beta1.json"]) {
      expect(existsSync(join(root, "spec", file))).toBe(true);
    }
    const openapi = JSON.parse(readFileSync(join(root, "spec", "openapi-v2beta1.json"), "utf8")) as {
      openapi: string;
      paths: object;
    };
    expect(openapi.openapi).toMatch(/^3\./);
    expect(Object.keys(openapi.paths).length).toBeGreaterThan(20);
  });

  it("has no tracked file that reads a path outside the checkout", () => {
    const outside = /\.\.\/shared\b|\/work\/shared\b|\/work\/main\b/;
    const offenders: string[] = [];
    for (const file of trackedTextFiles()) {
      // .ci/run only mentions, in a comment, how CI lays the checkout out; spec/ is the documents themselves.
      if (file === ".ci/run" || file.startsWith("spec/")) continue;
      const text = readFileSync(join(root, file));
      if (text.includes(0)) continue; // binary
      text
        .toString("utf8")
        .split("\n")
        .forEach((line, index) => {
          if (outside.test(line)) offenders.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});

/**
 * A generated file says so by its name, so a reader, a review or the `duplicates` tool can leave it out by a pattern:
 * TypeScript as `<name>.generated.ts`, except a resource's provider module `<stem>.provider.ts`, whose compiled path
 * every stack's state stores; what else a generator writes is JSON, Markdown or the SDKs under native-sdks/. The
 * list comes from the generators themselves (each script under GENERATORS exports `outputs()`), so a new generator,
 * or a new file of an old one, named like hand-written code fails here.
 */
describe("generated files are named as generated", () => {
  // In a child process: the generators load prettier, which Jest's module registry cannot.
  const generators = JSON.parse(
    execFileSync("node", [join(root, "scripts", "generate.js"), "--outputs"], {
      cwd: root,
      encoding: "utf8",
    }),
  ) as { name: string; script: string; outputs: string[] }[];
  const { GENERATORS } = require("../scripts/generate.js") as { GENERATORS: { name: string }[] };
  const written = generators.flatMap(({ script, outputs }) => outputs.map((file) => ({ script, file })));
  const GENERATED_TS = /\.generated\.ts$/;
  const PROVIDER_MODULE = /^provider\/[a-z]+\/[a-z-]+\.provider\.ts$/;
  const namedAsGenerated = (file: string): boolean =>
    GENERATED_TS.test(file) ||
    PROVIDER_MODULE.test(file) ||
    /\.(json|md)$/.test(file) ||
    file === "native-sdks/";

  it("lists what every generator writes, inside the repository", () => {
    expect(generators.map((g) => g.name)).toEqual(GENERATORS.map((g) => g.name));
    for (const { name, outputs } of generators) expect([name, outputs.length > 0]).toEqual([name, true]);
    for (const { file } of written) {
      expect(file).not.toMatch(/^(\/|\.\.)/);
      expect(existsSync(join(root, file))).toBe(true);
    }
  });

  it("names every file a generator writes as generated", () => {
    const misnamed = written
      .filter(({ file }) => !namedAsGenerated(file))
      .map((w) => `${w.file} (${w.script})`);
    expect(misnamed).toEqual([]);
  });

  it("gives those names to no hand-written file", () => {
    const generated = new Set(written.map((w) => w.file));
    const handWritten = trackedTextFiles().filter(
      (file) => (GENERATED_TS.test(file) || PROVIDER_MODULE.test(file)) && !generated.has(file),
    );
    expect(handWritten).toEqual([]);
  });

  it("rejects a generated TypeScript file named like hand-written code", () => {
    expect(namedAsGenerated("provider/types.ts")).toBe(false);
    expect(namedAsGenerated("provider/iam/resources.ts")).toBe(false);
    expect(namedAsGenerated("sdk/schemas/openapi.ts")).toBe(false);
    expect(namedAsGenerated("provider/types.generated.ts")).toBe(true);
  });
});
