/**
 * What Pulumi stores for each resource's provider: with the package installed under node_modules, a one-line
 * `require()` of the installed module that holds no credential or package version and revives to the very provider
 * object; and the program loads none of zod, undici or the SDK until a provider method runs.
 *
 * The check needs Node's own module resolution and require.cache, which Jest's module registry bypasses, so it runs
 * in a plain `node` child process against a throwaway install: provider/ and sdk/ transpiled into
 * <tmp>/node_modules/pulumi-platform/dist with the repository's package.json.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";

const repo = path.resolve(__dirname, "../..");
const PROVIDERS = [
  "iam/group.provider",
  "iam/identity.provider",
  "iam/role.provider",
  "iam/role-binding.provider",
  "iam/identity-provider.provider",
  "iam/group-invite.provider",
  "iam/account-association.provider",
];

function listTs(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listTs(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-serialize-"));
  const pkg = path.join(tmp, "node_modules", "pulumi-platform");
  for (const file of [...listTs(path.join(repo, "provider")), ...listTs(path.join(repo, "sdk"))]) {
    const out = path.join(pkg, "dist", path.relative(repo, file)).replace(/\.ts$/, ".js");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const js = ts.transpileModule(fs.readFileSync(file, "utf8"), {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
    }).outputText;
    fs.writeFileSync(out, js);
  }
  fs.copyFileSync(path.join(repo, "package.json"), path.join(pkg, "package.json"));
  // The package's dependencies, as npm would install them beside it (a scope directory once).
  const manifest = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  const tops = new Set(Object.keys(manifest.dependencies).map((dep) => dep.split("/")[0] as string));
  for (const dep of tops) {
    fs.symlinkSync(path.join(repo, "node_modules", dep), path.join(tmp, "node_modules", dep), "dir");
  }
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Serialized {
  module: string;
  bytes: number;
  text: string;
  sameObject: boolean;
  /** Modules of the package and its heavy dependencies loaded by the time the provider was referenced. */
  loadedBeforeCall: string[];
  /** The same after the revived provider's first call. */
  loadedAfterCall: string[];
}

/**
 * In a plain node process, as a program would: requires the package's entry point, takes what dynamicProps stores
 * for each provider (`__provider`), revives it the way the dynamic-provider host does (require-from-string,
 * `.handler()`), and calls it once.
 */
function serialize(): Serialized[] {
  const script = `
    const requireFromString = require("require-from-string");
    require("pulumi-platform");
    const { dynamicProps } = require("pulumi-platform/dist/provider/core/resource-class.js");
    const loaded = () => Object.keys(require.cache)
      .filter((k) => new RegExp("node_modules[/](zod|undici|re2js|jose)[/]|pulumi-platform[/]dist[/](sdk|provider[/].*implementation)").test(k))
      .map((k) => k.slice(k.lastIndexOf("node_modules/") + 13));
    (async () => {
      const results = [];
      for (const name of ${JSON.stringify(PROVIDERS)}) {
        const provider = require("pulumi-platform/dist/provider/" + name + ".js");
        const text = dynamicProps(provider, {}).__provider;
        const loadedBeforeCall = loaded();
        const revived = requireFromString(text).handler();
        // Configure it with a credential first: it must not end up in what is stored.
        await revived.configure({ config: { get: (k) => ({ "platform:apiUrl": "http://127.0.0.1:1", "platform:token": "SECRET-TOKEN-abc123" })[k] } });
        await revived.diff("x", {}, {});
        results.push({ module: name, bytes: Buffer.byteLength(text), text, sameObject: revived === provider,
          loadedBeforeCall, loadedAfterCall: loaded() });
      }
      process.stdout.write(JSON.stringify(results));
    })().catch((e) => { console.error(e); process.exit(1); });
  `;
  const requireFromString = path.dirname(require.resolve("require-from-string/package.json"));
  fs.symlinkSync(requireFromString, path.join(tmp, "node_modules", "require-from-string"), "dir");
  const out = execFileSync(process.execPath, ["-e", script], { cwd: tmp, encoding: "utf8", timeout: 60_000 });
  return JSON.parse(out) as Serialized[];
}

describe("what the stack stores for each resource's provider", () => {
  let results: Serialized[];
  beforeAll(() => {
    results = serialize();
  });

  it("is a one-line require() of the installed module, with no credential and no version", () => {
    expect(results).toHaveLength(PROVIDERS.length);
    const version = (
      JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as { version: string }
    ).version;
    if (process.env.SHOW_SERIALIZED)
      console.log(results.map((r) => `${r.module}: ${r.bytes} bytes\n${r.text}`).join("\n"));
    for (const r of results) {
      expect(r.text).toBe(
        `exports.handler = () => require("pulumi-platform/dist/provider/${r.module}.js");\n`,
      );
      expect(r.text).not.toContain(version);
      expect(r.sameObject).toBe(true);
    }
  });

  it("keeps zod, undici and the SDK out of the program until a provider method runs", () => {
    expect(results[0]!.loadedBeforeCall).toEqual([]);
    // After the first call, that provider's implementation and zod are loaded; undici waits for a request.
    expect(results[0]!.loadedAfterCall).toEqual(
      expect.arrayContaining([
        `pulumi-platform/dist/provider/${PROVIDERS[0]}.js`.replace(".provider.js", ".implementation.js"),
        expect.stringMatching(/^zod\//),
      ]),
    );
    expect(results[0]!.loadedAfterCall.filter((m) => m.startsWith("undici/"))).toEqual([]);
  });
});
