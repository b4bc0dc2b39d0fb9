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
