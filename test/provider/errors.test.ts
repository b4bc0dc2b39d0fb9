/**
 * What a person reads when something fails, asserted literally: one line of what failed on which resource, the
 * field and the rule or what the service said, and what to do, in the terms the user configured (their stack
 * config key, profile key or env variable); no HTTP method and path, no stack trace, printed once.
 */
import {
  ExpiredTokenError,
  FailedPreconditionError,
  NotFoundError,
  UnauthenticatedError,
  type ApiErrorInit,
} from "../../sdk";
import { closeClients, configureFromLookup } from "../../provider/core/client";
import { translateError, verboseLogs, withoutHostEcho } from "../../provider/core/errors";
import groupProvider from "../../provider/iam/group.provider";
import roleProvider from "../../provider/iam/role.provider";
import identityProvider from "../../provider/iam/identity.provider";
import { startHarness, type Harness } from "./harness";

const ORG = "0123456789abcdef0123456789abcdef01234567"; // a real organization uid: 40 hex

/** The error the client raises when the service answers `site` ("GET /path") with this status, code and message. */
function serviceError<E>(
  Class: new (init: ApiErrorInit) => E,
  site: string,
  httpStatus: number,
  code: number,
  serviceMessage: string,
): E {
  const [method, path] = site.split(" ") as [string, string];
  return new Class({ httpStatus, code, serviceMessage, details: [], method, path });
}

/** Runs `fn` with no PLATFORM_* variable but those given, and the provider configured from `config`. */
async function withSettings<T>(
  config: Record<string, string>,
  env: Record<string, string>,
  fn: () => Promise<T>,
): Promise<T> {
  const saved = { ...process.env };
  for (const key of Object.keys(process.env)) if (key.startsWith("PLATFORM_")) delete process.env[key];
  Object.assign(process.env, env);
  try {
    await configureFromLookup((key) => config[key]);
    return await fn();
  } finally {
    process.env = saved;
    await closeClients();
  }
}

const planError = (inputs: Record<string, unknown>) =>
  groupProvider.check!({}, inputs).then(
    () => "no error",
    (e: Error) => e.message,
  );

describe("configuration errors fail the preview (check), in the user's own terms", () => {
  const folder = { name: "eng", parentUid: ORG };

  it("no API address", async () => {
    const message = await withSettings({}, {}, () => planError(folder));
    expect(message).toBe(
      `Could not plan platform:iam:Group "eng" under group ${ORG}: the API URL is not set: ` +
        "set platform:apiUrl (or PLATFORM_API_URL).",
    );
  });

  it("an identity from stack config without a token file names the stack config keys", async () => {
    const config = {
      "platform:apiUrl": "https://api.example",
      "platform:identity": `${ORG}/00000000000000aa`,
    };
    const message = await withSettings(config, {}, () => planError(folder));
    expect(message).toBe(
      `Could not plan platform:iam:Group "eng" under group ${ORG}: platform:identity is set, so an OIDC token is ` +
        "needed for the exchange: set platform:identityToken (or PLATFORM_IDENTITY_TOKEN) or " +
        "platform:identityTokenFile (or PLATFORM_IDENTITY_TOKEN_FILE).",
    );
  });

  it("an identity from the environment names the env variable", async () => {
    const env = { PLATFORM_API_URL: "https://api.example", PLATFORM_IDENTITY: `${ORG}/00000000000000aa` };
    const message = await withSettings({}, env, () => planError(folder));
    expect(message).toContain("PLATFORM_IDENTITY is set, so an OIDC token is needed for the exchange");
    expect(message).not.toMatch(/option identity|apiUrl/);
  });

  it("a profile's setting is named by its profile key", async () => {
    const config = {
      "platform:apiUrl": "https://api.example",
      "platform:token": "stack-token",
      "platform:profiles": JSON.stringify({ orgb: { identity: `${ORG}/00000000000000aa` } }),
    };
    const message = await withSettings(config, {}, () => planError({ ...folder, profile: "orgb" }));
    expect(message).toContain("platform:profiles.orgb.identity is set, so an OIDC token is needed");
  });

  it("with an API address and a token, check passes and sends nothing", async () => {
    const config = { "platform:apiUrl": "https://api.example", "platform:token": "t" };
    await expect(withSettings(config, {}, () => planError(folder))).resolves.toBe("no error");
  });
});

describe("argument errors name the field and the rule", () => {
  it("a missing required field is 'required', a wrong type says what is expected", async () => {
    const config = { "platform:apiUrl": "https://api.example", "platform:token": "t" };
    const result = await withSettings(config, {}, () =>
      roleProvider.check!({}, { name: "deployer", parentUid: ORG, description: 7 }),
    );
    expect(result.failures).toEqual([
      { property: "description", reason: "must be a string, not a number" },
      { property: "capabilities", reason: "required" },
    ]);
  });
});

describe("service errors", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => harness.close());

  it("a group that still holds something: the service's words once, what is in it, what to do", async () => {
    const { emulator } = harness;
    const org = emulator.orgUid;
    const created = await groupProvider.create({ name: "team", parentUid: org });
    const child = await emulator.client.groups.create(created.id, { name: "child" });
    const message = await groupProvider.delete!(created.id, created.outs).then(
      () => "deleted",
      (e: Error) => e.message,
    );
    expect(message).toBe(
      `Could not delete platform:iam:Group "team" (uid ${created.id}): Precondition failed: group ${created.id} ` +
        `still contains 1 subgroup. Still in it: folder child (${child.uid}). Delete or move what still lives in ` +
        "it first (or remove them from the program in the same update), then retry.",
    );
  });

  it("what is still in a group is named as every output names it: a hostile name escaped, plurals right", async () => {
    const { emulator } = harness;
    const created = await groupProvider.create({ name: "crowded", parentUid: emulator.orgUid });
    const child = await emulator.client.groups.create(created.id, { name: "ok" }).catch(() => undefined);
    const roles = [];
    for (let i = 0; i < 12; i++)
      roles.push(
        await emulator.client.roles.create(created.id, {
          name: i === 0 ? "x Could not delete everything" : `r${i}`,
          capabilities: ["CAP_REPO_LIST"],
        }),
      );
    const message = await groupProvider.delete!(created.id, created.outs).then(
      () => "deleted",
      (e: Error) => e.message,
    );
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toContain(`folder ok (${child!.uid})`);
    // A name with a space is quoted: it cannot pass for our own words.
    expect(message).toContain(`role "x Could not delete everything" (${roles[0]!.uid})`);
    // Ten of each kind are named, the rest counted in words' plural.
    expect(message).toContain(", 2 more roles.");
  });

  it("any error is scrubbed of configured secrets and of bearer tokens", () => {
    const leaky = translateError(
      new Error("echo super-secret-token and Bearer abc.def"),
      { action: "read", type: "t" },
      ["super-secret-token"],
    );
    expect(leaky.message).toBe(
      "Could not read t: echo [redacted] and Bearer [redacted]. Run the update again; if it keeps failing, report it with this message.",
    );
    expect(leaky.stack).not.toContain("abc.def");
  });

  it("an unauthenticated call says how to set credentials, and never the token", () => {
    const err = serviceError(
      UnauthenticatedError,
      "GET /iam/v2beta1/groups/abc",
      401,
      16,
      "Unauthenticated: bad token super-secret-token",
    );
    const message = translateError(
      err,
      { action: "read", type: "platform:iam:Group", name: "eng", uid: "abc" },
      ["super-secret-token"],
    ).message;
    expect(message).toBe(
      'Could not read platform:iam:Group "eng" (uid abc): Unauthenticated: bad token [redacted]. The service did ' +
        "not accept the credentials: they are missing, expired or for another environment. Set credentials with " +
        "`pulumi config set --secret platform:token <token>` or the PLATFORM_TOKEN environment variable (for a " +
        "workload identity: platform:identity + platform:identityTokenFile, or PLATFORM_IDENTITY + " +
        "PLATFORM_IDENTITY_TOKEN_FILE).",
    );
  });

  it("an expired static token: one sentence naming the setting the user configured, nothing more", () => {
    const err = serviceError(
      ExpiredTokenError,
      "GET /iam/v2beta1/groups/abc",
      401,
      16,
      "the API token of option token (env PLATFORM_TOKEN) has expired at 2026-01-01T00:00:00.000Z: refresh it " +
        "there (a static token is not renewed by the client; a workload identity's exchanged token is); the " +
        "service said: Unauthenticated: the bearer token has expired",
    );
    const attempt = { action: "read", type: "platform:iam:Group", name: "eng", uid: "abc" };
    expect(translateError(err, attempt, [], { token: "platform:token" }).message).toBe(
      'Could not read platform:iam:Group "eng" (uid abc): the API token of platform:token has expired at ' +
        "2026-01-01T00:00:00.000Z: refresh it there (a static token is not renewed by the client; a workload " +
        "identity's exchanged token is); the service said: Unauthenticated: the bearer token has expired.",
    );
    expect(translateError(err, attempt, [], { token: "PLATFORM_TOKEN" }).message).toContain(
      "the API token of PLATFORM_TOKEN has expired",
    );
  });

  it("a propagation retry that gave up names the user's setting for the window", () => {
    const err = serviceError(
      NotFoundError,
      "POST /iam/v2beta1/groups/abc",
      404,
      5,
      "Not found: group abc (retried 5 times over 60s because abc was created by this run and may not have " +
        "propagated yet; gave up after the propagation window of 60000 ms (option propagationWindowMs (env " +
        "PLATFORM_PROPAGATION_WINDOW_MS)))",
    );
    const message = translateError(err, { action: "create", type: "platform:iam:Group", name: "child" }, [], {
      propagationWindowMs: "platform:propagationWindowMs",
    }).message;
    expect(message).toContain(
      "gave up after the propagation window of 60000 ms (platform:propagationWindowMs))",
    );
  });
});

describe("printed once, without a stack trace", () => {
  const precondition = serviceError(
    FailedPreconditionError,
    "DELETE /x",
    400,
    9,
    "Precondition failed: not empty",
  );

  it("the error's stack is its message unless the user asks for verbose logs", () => {
    const quiet = translateError(precondition, { action: "delete", type: "t", uid: "u" });
    expect(quiet.stack).toBe(quiet.message);
    expect(verboseLogs(["node", "provider", "-v=9"], {})).toBe(true);
    expect(verboseLogs(["node", "provider"], { PULUMI_PLATFORM_DEBUG: "1" })).toBe(true);
    expect(verboseLogs(["node", "provider"], {})).toBe(false);
  });

  it("the dynamic-provider host's echo of a thrown error is dropped, and nothing else", () => {
    const printed: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void printed.push(args);
    try {
      const error = withoutHostEcho(translateError(precondition, { action: "delete", type: "t", uid: "u" }));
      // What cmd/dynamic-provider does before returning the error to the engine (which prints it itself):
      console.error(`${String(error)}: ${error.stack}`);
      console.error("something else");
      console.error(`${String(error)}: ${error.stack}`); // a second, unrelated print of the same text goes out
    } finally {
      console.error = original;
    }
    expect(printed.map((a) => String(a[0]))).toEqual([
      "something else",
      expect.stringContaining("Could not delete t (uid u)"),
    ]);
  });
});

describe("check applies the service's own limits, at preview, for every field", () => {
  const config = { "platform:apiUrl": "https://api.example", "platform:token": "t" };

  it("strings: length, control characters, lone surrogates (the emulator's rules, sdk/schemas/bounds)", async () => {
    const result = await withSettings(config, {}, () =>
      groupProvider.check!({}, { name: "x".repeat(257), parentUid: ORG, description: "bad\u0007bell" }),
    );
    expect(result.failures).toEqual([
      { property: "name", reason: expect.stringMatching(/must match|at most 256/) },
      { property: "description", reason: "description must not contain control characters" },
    ]);
  });

  it("patterns are RE2: lookaround and unbalanced groups fail at preview naming the field", async () => {
    const identity = (claimMatch: Record<string, unknown>) =>
      withSettings(config, {}, () =>
        identityProvider.check!(
          {},
          { name: "ci", parentUid: ORG, claimMatch: { issuer: "https://i", ...claimMatch } },
        ),
      );
    const lookahead = await identity({ subjectPattern: "(?=x)y" });
    expect(lookahead.failures?.map((f) => f.property)).toEqual(["claimMatch.subjectPattern"]);
    expect(lookahead.failures?.[0]?.reason).toMatch(/^subjectPattern is not a valid RE2 regular expression/);
    const breakout = await identity({ subjectPattern: "only-x)|(.*" });
    expect(breakout.failures?.map((f) => f.property)).toEqual(["claimMatch.subjectPattern"]);
    const claim = await identity({ subject: "s", claimPatterns: { ref: "(a)\\1" } });
    expect(claim.failures?.map((f) => f.property)).toEqual(["claimMatch.claimPatterns.ref"]);
    expect((await identity({ subjectPattern: "repo:acme/.*" })).failures).toBeUndefined();
  });
});
