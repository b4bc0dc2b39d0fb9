/**
 * docs/adopting.md "Bring an existing organization", run literally: an organization with an object of every kind,
 * made through the API, taken over whole with `npx platform-import` and `pulumi import --file`, whose printed
 * TypeScript program then previews no change (the README's own `pulumi preview --expect-no-changes`); then the same
 * objects from a Terraform state of the chainguard provider (served by a stand-in `terraform` that answers
 * `state pull` with the state and records what `state rm` is given). Then the same document in a Go, a Python, a
 * YAML and a Java project: the program `pulumi import` prints, made the project's program as the README says,
 * previews no change.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Emulator } from "../../emulator";
import { terraformState, type EveryKind, EVERY_KIND_ADDRESSES } from "../commands/fixtures";
import { AdoptionProject, platformResources } from "./adoption";
import { repoRoot, type PulumiStack } from "./harness";
import { writeJavaProject } from "./java-project";
import { pythonEnvironment } from "./python-env";
import { codeBlocks, docPath, SHELL_LANGUAGES, shellCommands } from "./readme";

jest.setTimeout(900_000);

const programDir = path.join(repoRoot, "test/e2e/fixtures/adopt");
const written = [
  "index.ts",
  "import.json",
  "terraform.tfstate",
  "stack.json",
  "unmanaged.json",
  "adopted.ts",
];
const [fromApi, fromTerraform, report] = codeBlocks(docPath(repoRoot, "docs/adopting.md"))
  .filter((b) => b.section === "Bring an existing organization" && SHELL_LANGUAGES.has(b.language))
  .map(shellCommands);

describe("README: bring an existing organization", () => {
  let project: AdoptionProject;
  let emulator: Emulator;
  let objects: EveryKind;
  let fakeBin: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    expect(fromApi).toBeDefined();
    expect(fromTerraform).toBeDefined();
    expect(report).toBeDefined();
    project = await AdoptionProject.create(programDir, written);
    ({ emulator, objects } = project);
    fakeBin = fs.mkdtempSync(path.join(os.tmpdir(), "fake-terraform-"));
    fs.writeFileSync(
      path.join(fakeBin, "terraform"),
      [
        "#!/bin/sh",
        'case "$1 $2" in',
        '  "state pull") cat "$FAKE_TERRAFORM_STATE" ;;',
        '  "state rm") shift 2; printf "%s\\n" "$@" > "$FAKE_TERRAFORM_REMOVED" ;;',
        '  *) echo "fake terraform: no $*" >&2; exit 1 ;;',
        "esac",
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    env = {
      PLATFORM_API_URL: emulator.url,
      PLATFORM_TOKEN: emulator.token,
      ORGANIZATION_UID: emulator.orgUid,
      PATH: `${fakeBin}:${process.env["PATH"] ?? ""}`,
      FAKE_TERRAFORM_STATE: path.join(fakeBin, "state.json"),
      FAKE_TERRAFORM_REMOVED: path.join(fakeBin, "removed.txt"),
    };
    fs.writeFileSync(env["FAKE_TERRAFORM_STATE"]!, JSON.stringify(terraformState(objects, emulator.orgUid)));
  });

  afterAll(async () => {
    await project?.cleanup();
    if (fakeBin) fs.rmSync(fakeBin, { recursive: true, force: true });
  });

  /** Runs one of the document's commands in the project, in the stack's environment; fails on a non-zero exit. */
  async function sh(
    command: string,
    stack: PulumiStack,
    extra: Record<string, string> = {},
  ): Promise<string> {
    const result = await stack.shell(command, { dir: programDir, env: { ...env, ...extra } });
    return result.stdout + result.stderr;
  }

  /** Runs one of the document's commands as `sh` does, and gives its exit code. */
  async function shExit(command: string, stack: PulumiStack): Promise<{ code: number; output: string }> {
    const result = await stack.shell(command, { dir: programDir, env, allowFailure: true });
    return { code: result.exitCode, output: result.stdout + result.stderr };
  }

  it("from the API: every object is imported, and the printed program previews no change", async () => {
    const stack = await project.freshStack();
    emulator.clearRequestLog();
    const outputs: string[] = [];
    for (const command of fromApi!) outputs.push(await sh(command, stack));
    // Nothing was created, changed or deleted.
    expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
    const o = objects;
    const expected = [`platform:iam:Group ${emulator.orgUid}`, ...project.everyKindResources()];
    const ids = await platformResources(stack);
    expect(ids).toEqual(expect.arrayContaining(expected));
    expect(ids).toHaveLength(expected.length + 1); // and the bootstrap owner's binding on the organization
    expect(outputs[0]).toMatch(
      /not recoverable \(2\):\n {2}legacy-sso .*clientSecret.*\n {2}legacy-invite .*code/,
    );
    const code = fs.readFileSync(path.join(programDir, "index.ts"), "utf8");
    expect(code).toContain('import * as platform from "pulumi-platform-native";');
    // Objects of the same import are referred to by reference, and each sits under its group.
    expect(code).toMatch(/parentUid: demo_org\.id/);
    expect(code).toMatch(/identityUid: legacy_ci\.id/);
    expect(code).toMatch(/roleUid: legacy_role\.id/);
    expect(code).toMatch(/groupUid: legacy\.id/); // the association's
    expect(code).toMatch(/parent: legacy\b/);
    expect(code).not.toContain(o.identity.uid);
    expect(code).not.toContain(o.role.uid);
    expect(code).not.toContain(emulator.token);
    console.log(`printed program (from the API):\n${code}`);
  });

  it("from a Terraform state: the same objects, the same clean preview, and state rm of exactly them", async () => {
    const stack = await project.freshStack();
    for (const command of fromTerraform!) await sh(command, stack);
    expect(await platformResources(stack)).toEqual(project.everyKindResources());
    expect(fs.readFileSync(env["FAKE_TERRAFORM_REMOVED"]!, "utf8").trim().split("\n")).toEqual(
      EVERY_KIND_ADDRESSES,
    );
    const code = fs.readFileSync(path.join(programDir, "index.ts"), "utf8");
    expect(code).toMatch(/identityUid: legacy_ci\.id/);
    expect(code).toMatch(/parent: legacy\b/);
    expect(code).not.toMatch(/invite-code-from-terraform|hand-made-secret/);
  });

  /**
   * A project of each other language the engine prints: the same document, imported with `pulumi import --file`,
   * prints a program that, written as the project's program as it is (Go on the generated Go SDK through a replace,
   * as examples/go; Python in the environment with the generated Python SDK, as examples/python; YAML on the
   * plugin's schema; Java on the generated Java SDK from the project's maven/, as templates/java), previews no
   * change. The TypeScript case is the README's block above. The only edits are the
   * README's: YAML is printed elsewhere and moved to Main.yaml, Java moved into Maven's source tree. The identity provider's clientSecret stays as
   * printed, "" (the service keeps the secret it has; the plugin takes "" for a secret an import could not read).
   */
  it.each([
    {
      language: "go",
      out: "main.go",
      program: "main.go",
      setup: (dir: string): Record<string, string> => {
        // examples/go's module file (its go.sum too: the module cache it filled serves this build), with the
        // generated SDK replaced by the repository's copy, as the README tells a Go user.
        const goMod = fs
          .readFileSync(path.join(repoRoot, "examples/go/go.mod"), "utf8")
          .replace(/^module .*$/m, "module platform-adopt-go")
          .replace(/=> \.\.\/\.\.\/native-sdks\/go$/m, `=> ${path.join(repoRoot, "native-sdks/go")}`);
        fs.writeFileSync(path.join(dir, "go.mod"), goMod);
        fs.copyFileSync(path.join(repoRoot, "examples/go/go.sum"), path.join(dir, "go.sum"));
        return {};
      },
      printed: [/iam\.NewGroup\(ctx, "legacy"/, /IdentityUid: legacy_ci\.ID\(\)/, /pulumi\.Parent\(legacy\)/],
    },
    {
      language: "python",
      out: "__main__.py",
      program: "__main__.py",
      setup: (): Record<string, string> => ({ VIRTUAL_ENV: pythonEnvironment() }),
      printed: [/legacy = platform\.iam\.Group\("legacy",/, /identity_uid=legacy_ci\.id/, /parent=legacy\b/],
    },
    {
      language: "yaml",
      // pulumi import empties the file it prints to before it runs the program, so a YAML project's program
      // (Main.yaml beside Pulumi.yaml) is printed elsewhere and moved in, as the README says.
      out: "program.yaml",
      program: "Main.yaml",
      setup: (): Record<string, string> => ({}),
      printed: [/type: platform:iam:Group/, /identityUid: \$\{\["legacy-ci"\]\.id\}/, /parent: \$\{legacy\}/],
    },
    {
      language: "java",
      // Printed as one class, App of the package generated_program, which Maven compiles from its source tree.
      out: "Main.java",
      program: "src/main/java/generated_program/App.java",
      setup: (dir: string): Record<string, string> => {
        writeJavaProject(dir, "platform-adopt-java", "generated_program.App");
        return {};
      },
      printed: [/new Group\("legacy"/, /\.identityUid\(legacy_ci\.id\(\)\)/, /\.parent\(legacy\)/],
    },
  ])(
    "a $language project: the same document prints $language that previews no change",
    async ({ language, out, program, setup, printed }) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `platform-adopt-${language}-`));
      try {
        fs.writeFileSync(
          path.join(dir, "Pulumi.yaml"),
          `name: platform-adopt-${language}\nruntime: ${language}\n`,
        );
        const stack = await project.stackOf(dir, undefined, { env: setup(dir) });
        await sh(`npx platform-import "$ORGANIZATION_UID" --out ${path.join(dir, "import.json")}`, stack);
        const credentials = {
          PLATFORM_API_URL: env["PLATFORM_API_URL"]!,
          PLATFORM_TOKEN: env["PLATFORM_TOKEN"]!,
        };
        let started = Date.now();
        await stack.run(["import", "--file", "import.json", "--out", out, "--yes"], { env: credentials });
        const importMs = Date.now() - started;
        const code = fs.readFileSync(path.join(dir, out), "utf8");
        console.log(`printed program (${language}):\n${code}`);
        for (const pattern of printed) expect(code).toMatch(pattern);
        expect(code).not.toContain(emulator.token);
        fs.rmSync(path.join(dir, out));
        // Printed as "", kept as is.
        expect(code).toMatch(/[Cc]lient_?[Ss]ecret([:=]\s*(pulumi\.String\()?|\()""/);
        fs.mkdirSync(path.dirname(path.join(dir, program)), { recursive: true });
        fs.writeFileSync(path.join(dir, program), code);
        started = Date.now();
        await stack.preview({ env: credentials });
        console.log(`${language}: import ${importMs} ms, preview ${Date.now() - started} ms`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  /**
   * `--bindings=group-access`: the organization's and the folder's bindings become one GroupAccess each,
   * which `pulumi import` takes over by the group's uid and whose printed program previews no change. Then the
   * README's report block on that stack: a hand-made identity in the folder, and its binding there (which the
   * folder's GroupAccess holds), leave exactly the identity unmanaged (exit 2); the document adopts it, after which
   * the report is clean (exit 0).
   */
  it("--bindings=group-access imports one GroupAccess per group; the report finds what is made by hand", async () => {
    const stack = await project.freshStack();
    emulator.clearRequestLog();
    await sh(`npx platform-import "$ORGANIZATION_UID" --bindings=group-access --out import.json`, stack);
    const document = JSON.parse(fs.readFileSync(path.join(programDir, "import.json"), "utf8")) as {
      resources: { type: string; id: string }[];
    };
    const ofType = (type: string) => document.resources.filter((r) => r.type === type).map((r) => r.id);
    expect(ofType("platform:iam:GroupAccess")).toEqual([emulator.orgUid, objects.group.uid]);
    expect(ofType("platform:iam:RoleBinding")).toEqual([]);
    await sh("pulumi import --file import.json --out index.ts --yes", stack);
    await sh("pulumi preview --expect-no-changes", stack);
    expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
    const ids = await platformResources(stack);
    expect(ids).toEqual(
      expect.arrayContaining([
        `platform:iam:GroupAccess ${emulator.orgUid}`,
        `platform:iam:GroupAccess ${objects.group.uid}`,
      ]),
    );
    expect(ids.filter((id) => id.startsWith("platform:iam:RoleBinding"))).toEqual([]);
    const code = fs.readFileSync(path.join(programDir, "index.ts"), "utf8");
    expect(code).toMatch(/new platform\.iam\.GroupAccess\("legacy-access"/);

    const stray = await emulator.client.identities.create(objects.group.uid, {
      name: "stray",
      claimMatch: { issuer: "https://issuer.example.com", subject: "stray" },
    });
    const strayBinding = await emulator.client.roleBindings.create(objects.group.uid, {
      identityUid: stray.uid,
      roleUid: objects.viewer.uid,
    });
    try {
      const [exportState, runReport, adopt] = report!;
      await sh(exportState!, stack);
      const found = await shExit(runReport!, stack);
      expect(found.code).toBe(2);
      expect(found.output).toMatch(/ 1 unmanaged, 0 managed but gone/);
      expect(found.output).toContain(`  identity  ${stray.uid}  stray in folder legacy`);
      expect(found.output).toMatch(/^ {2}role bindings +3 \/ 3$/m); // held by the GroupAccess resources
      await sh(adopt!, stack);
      expect(fs.readFileSync(path.join(programDir, "adopted.ts"), "utf8")).toMatch(
        /new platform\.iam\.Identity\("stray"/,
      );
      await sh(exportState!, stack);
      const clean = await shExit(runReport!, stack);
      expect(clean.output).toMatch(/ 0 unmanaged, 0 managed but gone/);
      expect(clean.code).toBe(0);
    } finally {
      await emulator.client.roleBindings.delete(strayBinding.uid);
      await emulator.client.identities.delete(stray.uid);
    }
  });

  // Last: the folder and identity it makes would keep every other import here from printing references.
  it("two objects of the same name: pulumi import prints no reference, as platform-import warned", async () => {
    const stack = await project.freshStack();
    const ci = await emulator.client.groups.create(emulator.orgUid, { name: "ci" });
    await emulator.client.identities.create(ci.uid, {
      name: "ci",
      claimMatch: { issuer: "https://issuer.example.com", subject: "ci" },
    });
    const outputs: string[] = [];
    for (const command of fromApi!) outputs.push(await sh(command, stack, { ORGANIZATION_UID: ci.uid }));
    expect(outputs[0]).toMatch(
      /warning: pulumi import will print every uid as a literal.*\[ci, ci-identity\]/,
    );
    const code = fs.readFileSync(path.join(programDir, "index.ts"), "utf8");
    expect(code).toContain(`parentUid: "${ci.uid}"`);
    expect(code).not.toMatch(/\.(id|name)\b/);
    expect(code).toMatch(/parent: ci\b/); // still under its group
  });
});
