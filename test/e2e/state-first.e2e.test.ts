/**
 * State-first adoption under the real engine (docs/adopting.md, "State-first, for large organizations"):
 * `platform-import --state-out` writes the state `pulumi import` would record, `platform-import load` merges it into
 * the stack with one `pulumi stack import`, and `pulumi import --preview-only` prints the program from it.
 *
 *   - the docs' blocks, run literally against an organization with an object of every kind (from the API, and from
 *     a Terraform state of the same objects): the printed TypeScript previews no change with no API call, and
 *     `pulumi refresh --preview-only` shows no change;
 *   - a new organization holding an object of every kind, in a TypeScript and a YAML project: no change on preview
 *     and on refresh, then an edit of one object is one update (one PATCH), and destroy removes every object;
 *   - each refusal of `load` leaves the stack as it was: a resource already in the stack, a plugin or an engine too
 *     old for the state, and an object changed since the read.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Emulator } from "../../emulator";
import type { PlatformClient } from "../../sdk";
import { terraformState, type EveryKind } from "../commands/fixtures";
import { AdoptionProject, platformResources } from "./adoption";
import { repoRoot, type PulumiStack } from "./harness";
import { codeBlocks, docPath, SHELL_LANGUAGES, shellCommands } from "./readme";

jest.setTimeout(900_000);

const programDir = path.join(repoRoot, "test/e2e/fixtures/state-first");
const written = ["index.ts", "import.json", "adopted.json", "terraform.tfstate"];
const [fromApi, fromTerraform] = codeBlocks(docPath(repoRoot, "docs/adopting.md"))
  .filter((b) => SHELL_LANGUAGES.has(b.language) && b.text.includes("--state-out"))
  .map(shellCommands);

/** A new organization holding an object of every kind, made by hand (an identity provider needs an organization). */
async function organizationOfEveryKind(client: PlatformClient, tag: string) {
  const viewer = (await client.roles.list({ name: "viewer", pageSize: 200 })).items.find(
    (r) => r.name === "viewer",
  )!;
  const org = await client.groups.create(undefined, {
    name: `estate-${tag}`,
    description: "Estate made by hand",
  });
  const team = await client.groups.create(org.uid, { name: `team-${tag}`, description: "Team made by hand" });
  const identity = await client.identities.create(team.uid, {
    name: `robot-${tag}`,
    claimMatch: { issuer: "https://issuer.example.com", subject: `robot-${tag}` },
  });
  const role = await client.roles.create(org.uid, {
    name: `deployer-${tag}`,
    capabilities: ["CAP_REPO_LIST"],
  });
  const binding = await client.roleBindings.create(team.uid, {
    identityUid: identity.uid,
    roleUid: role.uid,
  });
  const idp = await client.identityProviders.create(org.uid, {
    name: `sso-${tag}`,
    defaultRole: viewer.uid,
    oidc: { issuer: "https://login.example.com", clientId: `sso-${tag}`, clientSecret: "hand-made-secret" },
  });
  const invite = await client.groupInvites.create(team.uid, { roleUid: viewer.uid, ttl: "86400s" });
  const association = await client.accountAssociations.create(team.uid, {
    name: `aws-${tag}`,
    amazon: { account: "210987654321" },
  });
  return { org, team, identity, role, binding, idp, invite, association };
}

/** The stack's resources, as exported. */
async function resourcesOf(stack: PulumiStack): Promise<unknown[]> {
  const { state } = await stack.exportState();
  return state.deployment.resources ?? [];
}

describe("state-first adoption", () => {
  let project: AdoptionProject;
  let emulator: Emulator;
  let objects: EveryKind;
  let env: Record<string, string>;
  const dirs: string[] = [];

  beforeAll(async () => {
    expect(fromApi).toBeDefined();
    expect(fromTerraform).toBeDefined();
    project = await AdoptionProject.create(programDir, written);
    ({ emulator, objects } = project);
    env = {
      PLATFORM_API_URL: emulator.url,
      PLATFORM_TOKEN: emulator.token,
      ORGANIZATION_UID: emulator.orgUid,
      PATH: `${project.bin}:${process.env["PATH"] ?? ""}`,
    };
  });

  afterAll(async () => {
    await project?.cleanup();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** One of the document's commands in `dir`, in the stack's environment; fails on a non-zero exit. */
  async function sh(command: string, dir: string, stack: PulumiStack): Promise<string> {
    const result = await stack.shell(command, { dir, env });
    return result.stdout + result.stderr;
  }

  /** A fresh stack of a new YAML project (no resources declared yet). */
  async function yamlStack(): Promise<{ stack: PulumiStack; dir: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-state-first-yaml-"));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: platform-state-first-yaml\nruntime: yaml\n");
    return { stack: await project.stackOf(dir), dir };
  }

  it("the docs' block: the organization loaded in one step previews and refreshes no change, with no API call", async () => {
    const stack = await project.freshStack();
    emulator.clearRequestLog();
    const [walk, load, print, preview] = fromApi!;
    const walked = await sh(walk!, programDir, stack);
    expect(walked).toMatch(/wrote adopted\.json \(the state of 9 resources; 9 API calls/);
    await sh(load!, programDir, stack);
    emulator.clearRequestLog();
    await sh(print!, programDir, stack);
    expect(emulator.requestLog()).toEqual([]); // the program is printed from the loaded state
    await sh(preview!, programDir, stack);
    expect(emulator.requestLog()).toEqual([]);
    await stack.run(["refresh", "--preview-only", "--expect-no-changes"], { env });
    expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
    expect(await platformResources(stack)).toEqual(
      expect.arrayContaining([`platform:iam:Group ${emulator.orgUid}`, ...project.everyKindResources()]),
    );
    const code = fs.readFileSync(path.join(programDir, "index.ts"), "utf8");
    expect(code).toMatch(/identityUid: legacy_ci\.id/);
    expect(code).toMatch(/parent: legacy\b/);
    const { text } = await stack.exportState();
    expect(text).not.toContain(emulator.token);
  });

  it("the docs' Terraform block: the same objects, loaded in one step, preview no change", async () => {
    const stack = await project.freshStack();
    fs.writeFileSync(
      path.join(programDir, "terraform.tfstate"),
      JSON.stringify(terraformState(objects, emulator.orgUid)),
    );
    for (const command of fromTerraform!) await sh(command, programDir, stack);
    expect(await platformResources(stack)).toEqual(project.everyKindResources());
  });

  it.each([
    { language: "typescript", edit: /description: "Team made by hand"/, to: 'description: "Edited"' },
    { language: "yaml", edit: /description: Team made by hand/, to: "description: Edited" },
  ])(
    "$language: an organization of every kind, no change on preview and refresh; one edit is one update; destroy works",
    async ({ language, edit, to }) => {
      const o = await organizationOfEveryKind(emulator.client, language.slice(0, 2));
      const { stack, dir } =
        language === "yaml" ? await yamlStack() : { stack: await project.freshStack(), dir: programDir };
      const out = language === "yaml" ? "program.yaml" : "index.ts";
      await sh(`platform-import ${o.org.uid} --out import.json --state-out adopted.json`, dir, stack);
      await sh("platform-import load adopted.json", dir, stack);
      await sh(`pulumi import --file import.json --preview-only --out ${out}`, dir, stack);
      if (language === "yaml") fs.renameSync(path.join(dir, out), path.join(dir, "Main.yaml"));
      const program = path.join(dir, language === "yaml" ? "Main.yaml" : "index.ts");
      emulator.clearRequestLog();
      await stack.preview({ env }).catch((err: Error) => {
        throw new Error(`${err.message}\nthe program:\n${fs.readFileSync(program, "utf8")}`);
      });
      expect(emulator.requestLog()).toEqual([]);
      await stack.run(["refresh", "--preview-only", "--expect-no-changes"], { env });

      const code = fs.readFileSync(program, "utf8");
      console.log(`printed program (${language}):\n${code}`);
      expect(code).toMatch(edit);
      fs.writeFileSync(program, code.replace(edit, to));
      emulator.clearRequestLog();
      const up = await stack.run(["up", "--yes"], { env });
      expect(up.stdout).toMatch(/1 updated/);
      const writes = emulator.requestLog().filter((r) => r.method !== "GET");
      expect(writes.map((r) => `${r.method} ${r.path}`)).toEqual([
        expect.stringMatching(new RegExp(`^PATCH /iam/v2beta1/groups/${o.team.uid}\\b`)),
      ]);
      expect((await emulator.client.groups.get(o.team.uid)).description).toBe("Edited");

      // The organization's owner binding goes with the organization (the service removes it): forgotten first.
      await stack.run(["state", "unprotect", "--all", "--yes"], { env });
      const owner = ((await stack.exportState()).state.deployment.resources ?? []).find(
        (r) => r.type === "platform:iam:RoleBinding" && r.id === `${o.org.uid}/${r.id?.split("/")[1]}`,
      );
      if (owner !== undefined) await stack.run(["state", "delete", owner.urn, "--yes"], { env });
      await stack.run(["destroy", "--yes"], { env });
      expect(await platformResources(stack)).toEqual([]);
      await expect(emulator.client.groups.get(o.org.uid)).rejects.toThrow();
      await expect(emulator.client.groups.get(o.team.uid)).rejects.toThrow();
      await expect(emulator.client.identities.get(o.identity.uid)).rejects.toThrow();
      await expect(emulator.client.roles.get(o.role.uid)).rejects.toThrow();
      await expect(emulator.client.roleBindings.get(o.binding.uid)).rejects.toThrow();
      await expect(emulator.client.identityProviders.get(o.idp.uid)).rejects.toThrow();
      await expect(emulator.client.groupInvites.get(o.invite.uid)).rejects.toThrow();
    },
  );

  describe("load refuses, and the stack stays as it was", () => {
    let stack: PulumiStack;
    let dir: string;
    let estate: Awaited<ReturnType<typeof organizationOfEveryKind>>;

    beforeAll(async () => {
      ({ stack, dir } = await yamlStack());
      estate = await organizationOfEveryKind(emulator.client, "refusals");
    });

    const write = () =>
      sh(`platform-import ${estate.org.uid} --out import.json --state-out adopted.json`, dir, stack);

    async function refused(command: string, message: RegExp): Promise<void> {
      const before = await resourcesOf(stack);
      const result = await stack.shell(command, { dir, env, allowFailure: true });
      expect(result.exitCode).toBe(1);
      expect(result.stdout + result.stderr).toMatch(message);
      expect(await resourcesOf(stack)).toEqual(before);
    }

    it("an object changed since the read", async () => {
      await write();
      await emulator.client.identities.update(estate.identity.uid, { description: "changed meanwhile" });
      await refused(
        "platform-import load adopted.json",
        new RegExp(`changed since the state was read.*identity ${estate.identity.uid} changed`),
      );
    });

    it("a plugin older than the one that read the state", async () => {
      await write();
      const file = path.join(dir, "adopted.json");
      const adoption = JSON.parse(fs.readFileSync(file, "utf8")) as {
        platformAdoption: { pluginVersion: string };
      };
      adoption.platformAdoption.pluginVersion = "99.0.0";
      fs.writeFileSync(path.join(dir, "newer.json"), JSON.stringify(adoption));
      await refused(
        "platform-import load newer.json",
        /platform plugin installed is .*, older than 99\.0\.0/,
      );
    });

    it("a stack last written by a newer engine", async () => {
      const { state } = await stack.exportState();
      const manifest = (state.deployment["manifest"] ?? {}) as Record<string, unknown>;
      // The engine's cookie over the manifest no longer matches: --force takes the state as written.
      const newer = path.join(dir, "newer-engine.json");
      fs.writeFileSync(
        newer,
        JSON.stringify({
          ...state,
          deployment: { ...state.deployment, manifest: { ...manifest, version: "v9.0.0" } },
        }),
      );
      await stack.run(["stack", "import", "--file", newer, "--force"]);
      expect((await stack.exportState()).state.deployment["manifest"]).toMatchObject({ version: "v9.0.0" });
      try {
        await write();
        await refused(
          "platform-import load adopted.json",
          /last written by engine v9\.0\.0, newer than this pulumi/,
        );
      } finally {
        await stack.importState(state);
      }
    });

    it("a resource already in the stack", async () => {
      await write();
      await sh("platform-import load adopted.json", dir, stack);
      const loaded = await resourcesOf(stack);
      expect(loaded.length).toBeGreaterThan(9);
      await refused("platform-import load adopted.json", /already in the stack, nothing loaded/);
    });
  });
});
