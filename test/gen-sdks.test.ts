/**
 * The SDK drift check (scripts/gen-sdks.js --check, run by test/e2e/native-sdks.e2e.test.ts) compares native-sdks/
 * with a fresh generation. What git ignores there is not part of the SDKs: `pip install ./native-sdks/python` leaves
 * build/ and *.egg-info/ behind, and the check must not call them files "not generated". Anything else that is not
 * generated still is one.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const root = path.resolve(__dirname, "..");
const { differences } = require("../scripts/gen-sdks.js") as {
  differences(expectedDir: string, actualDir: string): string[];
};

function write(file: string, text = "x\n"): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe("the SDK drift check", () => {
  let scratch: string;
  let fresh: string;
  let sdks: string;

  beforeEach(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gen-sdks-test-"));
    // A fresh generation, outside any work tree, and a checkout holding the same files under native-sdks/.
    fresh = path.join(scratch, "fresh");
    const checkout = path.join(scratch, "checkout");
    sdks = path.join(checkout, "native-sdks");
    execFileSync("git", ["init", "-q", checkout]);
    fs.copyFileSync(path.join(root, ".gitignore"), path.join(checkout, ".gitignore"));
    // The generator's own .gitignore for the Python SDK, as it is committed.
    const pythonIgnore = fs.readFileSync(path.join(root, "native-sdks", "python", ".gitignore"), "utf8");
    for (const dir of [fresh, sdks]) {
      write(path.join(dir, "python", ".gitignore"), pythonIgnore);
      write(path.join(dir, "python", "setup.py"));
      write(path.join(dir, "python", "pulumi_platform_native", "__init__.py"));
      write(path.join(dir, "nodejs", "index.ts"));
    }
  });

  afterEach(() => {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("finds no difference between identical trees", () => {
    expect(differences(fresh, sdks)).toEqual([]);
  });

  it("ignores what a local `pip install ./native-sdks/python` leaves behind", () => {
    write(path.join(sdks, "python", "build", "lib", "pulumi_platform_native", "__init__.py"));
    write(path.join(sdks, "python", "pulumi_platform_native.egg-info", "PKG-INFO"));
    write(path.join(sdks, "python", "pulumi_platform_native", "__pycache__", "__init__.cpython-311.pyc"));
    expect(differences(fresh, sdks)).toEqual([]);
  });

  it("still reports a file that is neither generated nor ignored, a missing one and a changed one", () => {
    write(path.join(sdks, "python", "pulumi_platform_native.egg-info", "PKG-INFO"));
    write(path.join(sdks, "python", "pulumi_platform_native", "extra.py"));
    fs.rmSync(path.join(sdks, "nodejs", "index.ts"));
    write(path.join(sdks, "python", "setup.py"), "changed\n");
    expect(differences(fresh, sdks)).toEqual([
      "missing: nodejs/index.ts",
      "not generated (remove it): python/pulumi_platform_native/extra.py",
      "differs: python/setup.py",
    ]);
  });

  it("compares everything when the tree is not in a git work tree", () => {
    const outside = path.join(scratch, "outside");
    fs.cpSync(sdks, outside, { recursive: true });
    write(path.join(outside, "python", "build", "lib", "x.py"));
    expect(differences(fresh, outside)).toEqual(["not generated (remove it): python/build/lib/x.py"]);
  });
});
