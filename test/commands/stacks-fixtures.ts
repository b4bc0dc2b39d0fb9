/**
 * What the tests of many stacks share: a stand-in for the engine over a backend of exported states (it answers
 * `pulumi whoami --json`, `pulumi stack ls --all --json` and `pulumi stack export --stack=NAME` as the engine 3.248
 * does, and records each invocation), and the engine's secret form of a value.
 */
import type { RunPulumi } from "../../commands/stacks";
import { SECRET_SIG, SIG_KEY } from "../../commands/states";

/** A value as the engine keeps a secret in an export: encrypted. */
export const secret = (ciphertext = "v1:c2VjcmV0:AAAA") => ({ [SIG_KEY]: SECRET_SIG, ciphertext });

export interface FakeBackend {
  url: string;
  /** Each stack's export (JSON text), or the engine's error when it cannot export it. */
  stacks: Map<string, { text: string } | { error: string }>;
  /** What `pulumi whoami --json` names (default `url`). */
  current?: string;
  /** `pulumi stack ls` fails with this. */
  listError?: string;
  calls: { args: string[]; env: Record<string, string | undefined> }[];
  inFlight: number;
  maxInFlight: number;
}

export function fakeBackend(url: string, stacks: Record<string, unknown> = {}): FakeBackend {
  return {
    url,
    stacks: new Map(Object.entries(stacks).map(([name, state]) => [name, { text: JSON.stringify(state) }])),
    calls: [],
    inFlight: 0,
    maxInFlight: 0,
  };
}

const ok = (stdout: string) => ({ code: 0, stdout, stderr: "" });
const failed = (stderr: string) => ({ code: 255, stdout: "", stderr });

/** The engine over `backend`: the backend is the one PULUMI_BACKEND_URL names, as for the real CLI. */
export function fakeEngine(backend: FakeBackend): (env: Record<string, string | undefined>) => RunPulumi {
  return (env) => async (args) => {
    backend.calls.push({ args, env });
    backend.inFlight++;
    backend.maxInFlight = Math.max(backend.maxInFlight, backend.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 2));
      const url = env["PULUMI_BACKEND_URL"] || (backend.current ?? backend.url);
      if (args[0] === "whoami") return ok(JSON.stringify({ user: "ci", url }, null, 2));
      if (url !== backend.url) return failed(`error: could not reach ${url}`);
      if (args[0] === "stack" && args[1] === "ls") {
        if (backend.listError !== undefined) return failed(`error: ${backend.listError}`);
        const names = [...backend.stacks.keys()].sort();
        return ok(JSON.stringify(names.map((name) => ({ name, current: false, resourceCount: 3 }))));
      }
      if (args[0] === "stack" && args[1] === "export") {
        const name = args.find((a) => a.startsWith("--stack="))?.slice("--stack=".length) ?? "";
        const stack = backend.stacks.get(name);
        if (stack === undefined) return failed(`error: no stack named '${name}' found`);
        return "text" in stack ? ok(stack.text) : failed(`error: ${stack.error}`);
      }
      return failed(`error: unknown command ${args.join(" ")}`);
    } finally {
      backend.inFlight--;
    }
  };
}
