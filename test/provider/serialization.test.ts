/**
 * What Pulumi stores for each resource's provider: with the package installed under node_modules, the
 * serialized provider must be a small `require()` of the installed module (under 1 KB), hold no credential,
 * socket or package version, and deserialize to the very provider object.
 *
 * Pulumi decides by looking at Node's own require.cache, which Jest's module registry bypasses, so the
 * check runs in a plain `node` child process against a throwaway install: provider/ and sdk/ transpiled
 * into <tmp>/node_modules/pulumi-platform/dist with the repository's package.json.
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
}

function serialize(): Serialized[] {
  const script = `
    const path = require("node:path");
    const fs = require("node:fs");
    const sc = require("@pulumi/pulumi/runtime/closure/serializeClosure");
    (async () => {
      const results = [];
      for (const name of ${JSON.stringify(PROVIDERS)}) {
        const provider = require("pulumi-platform/dist/provider/" + name + ".js");
        // Configure it with a credential first: it must still not be captured.
        await provider.configure({ config: { get: (k) => ({ "platform:apiUrl": "http://127.0.0.1:1", "platform:token": "SECRET-TOKEN-abc123" })[k] } });
        const sf = await sc.serializeFunction(() => provider, { allowSecrets: true });
        const file = path.join(${JSON.stringify(tmp)}, name.replace("/", "-") + ".serialized.js");
        fs.writeFileSync(file, sf.text);
        const revived = require(file).handler();
        results.push({ module: name, bytes: Buffer.byteLength(sf.text), text: sf.text, sameObject: revived === provider });
      }
      process.stdout.write(JSON.stringify(results));
    })().catch((e) => { console.error(e); process.exit(1); });
  `;
  const out = execFileSync(process.execPath, ["-e", script], { cwd: tmp, encoding: "utf8", timeout: 60_000 });
  return JSON.parse(out) as Serialized[];
}

describe("provider serialization", () => {
  it("is a require() of the installed module, under 1 KB, with no credential and no version", () => {
    const results = serialize();
    expect(results).toHaveLength(PROVIDERS.length);
    const version = (
      JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as { version: string }
    ).version;
    if (process.env.SHOW_SERIALIZED)
      console.log(results.map((r) => `${r.module}: ${r.bytes} bytes\n${r.text}`).join("\n"));
    for (const r of results) {
      expect(r.text).toContain(`require("pulumi-platform/dist/provider/${r.module}.js")`);
      expect(r.bytes).toBeLessThan(1024);
      expect(r.text).not.toContain("SECRET-TOKEN-abc123");
      expect(r.text).not.toContain("127.0.0.1");
      expect(r.text).not.toContain(version);
      expect(r.sameObject).toBe(true);
    }
  });
});
