/**
 * The access plan under the real engine, in TypeScript (the dynamic package) and YAML (the native plugin), against an
 * in-process emulator (docs/access-review.md, "What an update changes"): a program that creates a workload identity
 * `ci-robot`, a custom role `deployer` with two capabilities and a binding of one to the other on a new folder
 * `platform`:
 *   - its first `pulumi preview --policy-pack policy` prints the pack's access-plan summary naming the identity,
 *     both capabilities, the folder and the role, with no uid, and the binding's own line;
 *   - `pulumi preview --json` piped to `platform-access plan` says the same in text, and as a pull request's
 *     Markdown (parsed as GitHub-flavoured Markdown: a table row naming them, privileged gains first);
 *   - `pulumi up --policy-pack policy` prints the summary once (its preview), applies, and the next preview says
 *     nothing about access;
 *   - the same `up` prints, from the provider itself (its impact line, provider/core/access-words.ts), one named line
 *     for the new identity gaining both capabilities on the new folder through the new role, and no uid where a name
 *     is known: every object it names is made by this update.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import MarkdownIt from "markdown-it";

import { startEmulator, type Emulator } from "../../emulator";
import { tearDown, installLocalPackage, PulumiStack, repoRoot, type CommandResult } from "./harness";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";

const { bundlePolicy } = require("../../scripts/build-policy.js") as { bundlePolicy: () => Promise<string> };

jest.setTimeout(900_000);

const policyPack = path.join(repoRoot, "policy");
const cli = path.join(repoRoot, "dist", "commands", "access", "cli.js");

const SUMMARY = [
  "access plan: this update grants 2 capabilities (1 privileged) to 1 identity and revokes none",
  'workload identity ci-robot (new) becomes role deployer (new) (2 capabilities: CAP_IAM_ROLE_BINDINGS_CREATE (privileged), CAP_REPO_LIST) on folder platform (new), through RoleBinding "ci-robot-deployer"',
];
const BINDING =
  'will bind workload identity ci-robot (new) to role deployer (new) on folder platform (new) (RoleBinding "ci-robot-deployer")';

/**
 * Runs platform-access with `input` on its standard input, as a CI job's pipe does. Asynchronous: the emulator it
 * reads runs in this process.
 */
function platformAccess(args: string[], input: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("node", [cli, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`platform-access ${args.join(" ")}: ${code}\n${stderr}`)),
    );
    child.stdin.end(input);
  });
}

/**
 * The provider's impact lines of a command's output, each once, from "access: " on: each names an identity first
 * (the policy pack's description also holds "access: ", mid-sentence).
 */
function accessLines(result: CommandResult): string[] {
  const impact = /access: (?:workload identity|user) .*$/;
  const lines = `${result.stdout}\n${result.stderr}`.split("\n").flatMap((l) => impact.exec(l) ?? []);
  return [...new Set(lines.map((l) => l.trimEnd()))];
}

/** The lines of a command's output that hold `text`, trimmed (the engine indents policy messages). */
const linesWith = (result: CommandResult, text: string) =>
  `${result.stdout}\n${result.stderr}`
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.includes(text));

let emulator: Emulator;
beforeAll(async () => {
  await bundlePolicy();
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

describe.each([
  { front: "typescript (dynamic)", fixture: "test/e2e/fixtures/access-plan", yaml: false },
  { front: "yaml (native plugin)", fixture: "test/e2e/fixtures/access-plan-yaml", yaml: true },
])("the access plan, $front", ({ fixture, yaml }) => {
  let stack: PulumiStack;
  let programDir: string;

  beforeAll(async () => {
    // The TypeScript program runs in place (its package resolves from the repo); the YAML one in a copy.
    if (!yaml) {
      programDir = path.join(repoRoot, fixture);
      installLocalPackage(programDir, { build: false });
    } else {
      programDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-access-plan-"));
      fs.cpSync(path.join(repoRoot, fixture), programDir, { recursive: true });
    }
    stack = await PulumiStack.create({
      programDir,
      config: {
        organization: emulator.orgUid,
        "platform:apiUrl": emulator.url,
        caps: "CAP_REPO_LIST,CAP_IAM_ROLE_BINDINGS_CREATE",
      },
      secrets: { "platform:token": emulator.token },
    });
    if (yaml) await installPlugin(stack, buildPluginTarball());
  });

  afterAll(async () => {
    await tearDown(stack);
    if (yaml) fs.rmSync(programDir, { recursive: true, force: true });
  });

  test("the first preview names the identity, both capabilities, the folder and the role; no uid", async () => {
    const preview = await stack.run(["preview", "--policy-pack", policyPack]);
    expect(linesWith(preview, SUMMARY[0]!)).toHaveLength(1);
    expect(linesWith(preview, SUMMARY[1]!)).toHaveLength(1);
    expect(linesWith(preview, BINDING)).toHaveLength(1);
    for (const line of linesWith(preview, "access plan")) expect(line).not.toContain(emulator.orgUid);
  });

  test("pulumi preview --json piped to platform-access plan says the same, as text and as Markdown", async () => {
    const json = (await stack.run(["preview", "--json"])).stdout;
    const env = { ...process.env, PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    const text = await platformAccess(["plan", "-"], json, env);
    expect(text).toBe(`${SUMMARY[0]}\n  ${SUMMARY[1]}\n${BINDING}\n`);

    const markdown = await platformAccess(["plan", "--markdown", "-"], json, env);
    const tokens = new MarkdownIt().parse(markdown, {});
    const headings = tokens.flatMap((t, i) => (t.type === "heading_open" ? [tokens[i + 1]!.content] : []));
    expect(headings).toEqual(["Access changes", "Privileged gains", "Bindings this update creates"]);
    const cells = (from: number) => {
      const row: string[] = [];
      for (let i = from; tokens[i]!.type !== "tr_close"; i++)
        if (tokens[i]!.type === "td_open")
          row.push(
            (tokens[i + 1]!.children ?? [])
              .map((c) => (c.type === "text" || c.type === "code_inline" ? c.content : ""))
              .join(""),
          );
      return row;
    };
    const rows = tokens
      .flatMap((t, i) => (t.type === "tr_open" ? [cells(i)] : []))
      .filter((r) => r.length > 0);
    expect(rows).toEqual([
      [
        "workload identity ci-robot (new)",
        "becomes role deployer (new) (2 capabilities: CAP_IAM_ROLE_BINDINGS_CREATE (privileged), CAP_REPO_LIST)",
        "folder platform (new)",
        'RoleBinding "ci-robot-deployer"',
      ],
      [
        'RoleBinding "ci-robot-deployer"',
        "workload identity ci-robot (new)",
        "role deployer (new)",
        "folder platform (new)",
      ],
    ]);
    expect(markdown).not.toContain(emulator.orgUid);
  });

  test("up prints the summary once and applies; the next preview says nothing about access", async () => {
    const up = await stack.run(["up", "--yes", "--policy-pack", policyPack]);
    expect(linesWith(up, SUMMARY[1]!)).toHaveLength(1);
    const made = await emulator.client.roleBindings.list({ descendantsOf: emulator.orgUid });
    const binding = made.items.filter((b) => b.identity?.name === "ci-robot");
    expect(binding.map((b) => b.role?.name)).toEqual(["deployer"]);
    // The provider's own line, by name: the identity, both capabilities, the folder, the role, the resource.
    const resource = `platform:iam:RoleBinding${yaml ? ' "ci-robot-deployer"' : ""}`;
    const lines = accessLines(up);
    expect(lines).toEqual([
      // The role was made by the same update: said with what it holds.
      "access: workload identity ci-robot becomes role deployer (2 capabilities: " +
        `CAP_IAM_ROLE_BINDINGS_CREATE (privileged!), CAP_REPO_LIST) on folder platform (${resource})`,
    ]);
    const uids = [
      emulator.orgUid,
      ...binding.flatMap((b) => [b.uid, b.identity!.uid, b.role!.uid, b.group!.uid]),
    ];
    for (const line of lines) for (const uid of uids) expect(line).not.toContain(uid);
    const again = await stack.run(["preview", "--policy-pack", policyPack]);
    expect(linesWith(again, "access plan")).toEqual([]);
    expect(linesWith(again, "will bind")).toEqual([]);
  });
});
