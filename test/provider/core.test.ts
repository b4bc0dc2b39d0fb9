/** The provider's pure core: config precedence, check with unknowns, the normalized diff, create recovery (the translator: errors.test.ts). */
import fc from "fast-check";
import { ConnectionError, NotFoundError, TimeoutError, UnavailableError } from "../../sdk";
import { UNKNOWN, checkInputs } from "../../provider/core/check";
import { readProviderSettings, resolveClientOptions } from "../../provider/core/config";
import { createOrAdopt } from "../../provider/core/create";
import { diffFields, normalize } from "../../provider/core/diff";
import { GROUP, GroupInputSchema } from "../../provider/iam/group.declaration";
import { ClaimMatchInputSchema } from "../../provider/iam/identity.declaration";
import { ROLE } from "../../provider/iam/role.declaration";

const lookup = (values: Record<string, string>) => (key: string) => values[key];

describe("config precedence: profile keys > stack config > PLATFORM_* env > defaults", () => {
  const env = { PLATFORM_API_URL: "https://env.example", PLATFORM_TOKEN: "env-token", PLATFORM_IDENTITY: "" };

  it("a profile's name is data: __proto__ and constructor are profiles like any other, or none", () => {
    const settings = readProviderSettings(
      lookup({
        "platform:profiles": `{"__proto__":{"apiUrl":"https://proto.example","token":"proto-token"}}`,
      }),
    );
    expect(resolveClientOptions(settings, "__proto__", env)).toMatchObject({
      apiUrl: "https://proto.example",
      token: "proto-token",
    });
    for (const missing of ["constructor", "toString", "hasOwnProperty"])
      expect(() => resolveClientOptions(settings, missing, env)).toThrow(
        `profile "${missing}" is not configured`,
      );
  });

  it("stack config is passed explicitly, so it wins over env inside the SDK", () => {
    const settings = readProviderSettings(
      lookup({ "platform:apiUrl": "https://stack.example", "platform:token": "stack-token" }),
    );
    const options = resolveClientOptions(settings, undefined, env);
    expect(options).toMatchObject({ apiUrl: "https://stack.example", token: "stack-token" });
  });

  it("platform:propagationWindowMs reaches the SDK as a number; a profile's own wins; garbage names its key", () => {
    const settings = readProviderSettings(
      lookup({
        "platform:propagationWindowMs": "2500",
        "platform:profiles": JSON.stringify({
          slow: { propagationWindowMs: "120000" },
          bad: { propagationWindowMs: "soon" },
        }),
      }),
    );
    expect(resolveClientOptions(settings, undefined, env).propagationWindowMs).toBe(2500);
    expect(resolveClientOptions(settings, "slow", env).propagationWindowMs).toBe(120000);
    expect(() => resolveClientOptions(settings, "bad", env)).toThrow(
      /platform:profiles\.bad\.propagationWindowMs must be a whole number of milliseconds/,
    );
    const stackOnly = readProviderSettings(lookup({ "platform:propagationWindowMs": "-1" }));
    expect(() => resolveClientOptions(stackOnly, undefined, env)).toThrow(
      /^platform:propagationWindowMs must be/,
    );
    // Unset: the SDK's own rule applies (env PLATFORM_PROPAGATION_WINDOW_MS, then 60000).
    expect(
      resolveClientOptions(readProviderSettings(lookup({})), undefined, env).propagationWindowMs,
    ).toBeUndefined();
  });

  it("without stack config, nothing is explicit and the env reaches the SDK untouched", () => {
    const options = resolveClientOptions(readProviderSettings(lookup({})), undefined, env);
    expect(options.apiUrl).toBeUndefined();
    expect(options.token).toBeUndefined();
    expect(options.env).toEqual(env);
  });

  it("a profile's keys override the stack's one by one; its credential replaces the stack's entirely", () => {
    const settings = readProviderSettings(
      lookup({
        "platform:apiUrl": "https://stack.example",
        "platform:identity": "0123456789abcdef0123456789abcdef01234567/0123456789abcdef",
        "platform:identityTokenFile": "/var/run/token",
        "platform:profiles": JSON.stringify({ orgb: { token: "orgb-token" } }),
      }),
    );
    const options = resolveClientOptions(settings, "orgb", { PLATFORM_IDENTITY: "from-env" });
    expect(options).toMatchObject({ apiUrl: "https://stack.example", token: "orgb-token" });
    expect(options.identity).toBeUndefined();
    expect(options.identityTokenFile).toBeUndefined();
    // A configured credential hides credential env vars, so an env identity cannot hijack it.
    expect(options.env?.PLATFORM_IDENTITY).toBeUndefined();
  });

  it("blank values count as unset, and a malformed profiles value fails loudly", () => {
    expect(readProviderSettings(lookup({ "platform:token": "  " })).stack.token).toBeUndefined();
    expect(() => readProviderSettings(lookup({ "platform:profiles": "{not json" }))).toThrow(
      /platform:profiles must be a JSON object/,
    );
  });
});

describe("check", () => {
  it("names each failing field and never fails on unknowns", () => {
    expect(checkInputs(GroupInputSchema, { name: "UPPER" }).map((f) => f.property)).toEqual(["name"]);
    expect(checkInputs(GroupInputSchema, {}).map((f) => f.property)).toEqual(["name"]);
    expect(checkInputs(GroupInputSchema, { name: UNKNOWN, parentUid: UNKNOWN })).toEqual([]);
  });

  it("checks a map value under any key, __proto__ included, naming its path", () => {
    const claimMatch = (claims: string) =>
      JSON.parse(`{"issuer":"https://i.example","subject":"s","claims":${claims}}`) as Record<
        string,
        unknown
      >;
    for (const key of ["__proto__", "constructor", "ok"])
      expect(
        checkInputs(ClaimMatchInputSchema, claimMatch(`{${JSON.stringify(key)}:5}`)).map((f) => f.property),
      ).toEqual([`claims.${key}`]);
    expect(checkInputs(ClaimMatchInputSchema, claimMatch(`{"__proto__":"v"}`))).toEqual([]);
  });

  it("accepts every name matching the spec's rule and rejects every other (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (name) => {
        const valid = /^[a-z0-9 ._-]{1,}$/.test(name);
        return (checkInputs(GroupInputSchema, { name }).length === 0) === valid;
      }),
    );
  });
});

describe("diff", () => {
  it("compares capabilities as sets and absent description as empty (property)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom("CAP_A", "CAP_B", "CAP_C", "CAP_D"), { minLength: 1 }),
        (caps) => {
          const olds = { parentUid: "p", name: "r", description: "", capabilities: caps };
          const news = { parentUid: "p", name: "r", capabilities: [...caps].reverse() };
          return diffFields(olds, news, ROLE.fields).changes === false;
        },
      ),
    );
  });

  it("puts immutable fields in replaces and the rest in the update mask", () => {
    const result = diffFields(
      { name: "a", description: "x", parentUid: "p" },
      { name: "b", description: "x", parentUid: "q" },
      GROUP.fields,
    );
    expect(result).toMatchObject({ changes: true, replaces: ["parentUid"], changedFields: ["name"] });
  });

  it("a map key is data: __proto__ or constructor keys compare by their values", () => {
    const claims = (value: string) => JSON.parse(`{"__proto__":"${value}","constructor":"c"}`) as object;
    expect(normalize("object", { claims: claims("a") })).not.toBe(
      normalize("object", { claims: claims("b") }),
    );
    expect(normalize("object", { claims: claims("a") })).toBe(normalize("object", { claims: claims("a") }));
    expect(normalize("object", { claims: claims("a") })).not.toBe(normalize("object", { claims: {} }));
  });

  it("normalizes objects: empty members and key order do not matter", () => {
    expect(normalize("object", { b: "", a: "1", c: {} })).toBe(normalize("object", { a: "1" }));
    expect(normalize("object", undefined)).toBe(normalize("object", {}));
  });
});

describe("create without duplicates", () => {
  const found = { uid: "found" };
  const made = { uid: "made" };
  /** An ambiguous failure: the connection dropped, so the request may or may not have been applied. */
  const dropped = (method: string) =>
    new ConnectionError({ method, path: "/x" }, "socket hang up", "ECONNRESET");
  const busy = (retryAfterMs: number) =>
    new UnavailableError({
      httpStatus: 503,
      code: 14,
      serviceMessage: "Unavailable: try later",
      details: [],
      method: "POST",
      path: "/x",
      retryAfterMs,
    });
  /**
   * A create that throws `failure` while `fails(attempt)` holds (attempts count from 1), then answers `made`; the
   * lookup finds nothing. `sent.creates` counts the attempts.
   */
  const failingCreate = (failure: Error, fails: (attempt: number) => boolean = () => true) => {
    const sent = { creates: 0 };
    const operations = {
      create: async () => {
        if (fails(++sent.creates)) throw failure;
        return made;
      },
      lookup: async () => undefined,
    };
    return { sent, operations };
  };

  it("after an ambiguous failure, takes over what the lookup finds and sends nothing more", async () => {
    let creates = 0;
    const outcome = await createOrAdopt(
      {
        create: async () => {
          creates++;
          throw dropped("POST");
        },
        lookup: async () => found,
      },
      false,
    );
    expect(outcome).toEqual({ object: found, how: "recovered" });
    expect(creates).toBe(1);
  });

  it("retries exactly once when the lookup finds nothing", async () => {
    const timedOut = new TimeoutError({ method: "POST", path: "/x" }, 30000);
    const { sent, operations } = failingCreate(timedOut, (attempt) => attempt === 1);
    const outcome = await createOrAdopt(operations, false);
    expect(outcome.how).toBe("created");
    expect(sent.creates).toBe(2);
  });

  const quick = { budgetMs: 60_000, maxCreates: 3, lookupRetries: 5, lookupBaseDelayMs: 0 };

  it("retries a lookup that fails, instead of giving up on knowing whether the create was applied", async () => {
    let lookups = 0;
    const outcome = await createOrAdopt(
      {
        create: async () => {
          throw dropped("POST");
        },
        lookup: async () => {
          if (lookups++ < 3) throw dropped("GET");
          return found;
        },
      },
      false,
      quick,
    );
    expect(outcome).toEqual({ object: found, how: "recovered" });
    expect(lookups).toBe(4);
  });

  it("looks up again after the resent create fails ambiguously too", async () => {
    let creates = 0;
    let applied = false;
    const outcome = await createOrAdopt(
      {
        create: async () => {
          creates++;
          if (creates === 2) applied = true; // the second attempt reached the service, its answer was lost
          throw dropped("POST");
        },
        lookup: async () => (applied ? found : undefined),
      },
      false,
      quick,
    );
    expect(outcome).toEqual({ object: found, how: "recovered" });
    expect(creates).toBe(2);
  });

  it("backs off before resending, for as long as the service's Retry-After asks", async () => {
    const delays: number[] = [];
    const { operations } = failingCreate(busy(1500), (attempt) => attempt === 1);
    const outcome = await createOrAdopt(operations, false, {
      ...quick,
      sleep: async (ms) => void delays.push(ms),
    });
    expect(outcome).toEqual({ object: made, how: "created" });
    expect(delays).toEqual([1500]);
  });

  it("gives up with the create's own error after maxCreates ambiguous failures that left nothing", async () => {
    const failure = new TimeoutError({ method: "POST", path: "/x" }, 30000);
    const { sent, operations } = failingCreate(failure);
    await expect(createOrAdopt(operations, false, quick)).rejects.toBe(failure);
    expect(sent.creates).toBe(3);
  });

  it("keeps resending within its time budget, not a fixed count, and stops when the next wait would pass it", async () => {
    // A service that is busy for a while: every create answers 503 with Retry-After 7 s, nothing is applied.
    let clock = 0;
    const unavailable = busy(7000);
    const policy = {
      budgetMs: 45_000,
      maxCreates: 100,
      lookupRetries: 0,
      lookupBaseDelayMs: 0,
      now: () => clock,
      sleep: async (ms: number) => void (clock += ms),
    };
    const always = failingCreate(unavailable);
    await expect(createOrAdopt(always.operations, false, policy)).rejects.toBe(unavailable);
    // Sends at 0, 7, 14, 21, 28, 35, 42 s; the next would start at 49 s, past the 45 s budget.
    expect(always.sent.creates).toBe(7);
    expect(clock).toBe(42_000);

    // The same outage, ending after 30 s: the create succeeds in the same run.
    clock = 0;
    const ending = failingCreate(unavailable, () => clock < 30_000);
    const outcome = await createOrAdopt(ending.operations, false, policy);
    expect(outcome).toEqual({ object: made, how: "created" });
    expect(ending.sent.creates).toBe(6);
  });

  it("reports the create's failure, not the lookup's, when the lookup cannot be answered", async () => {
    const failure = new TimeoutError({ method: "POST", path: "/x" }, 30000);
    await expect(
      createOrAdopt(
        {
          create: async () => {
            throw failure;
          },
          lookup: async () => {
            throw dropped("GET");
          },
        },
        false,
        quick,
      ),
    ).rejects.toBe(failure);
  });

  it("does not retry a definite failure", async () => {
    let lookups = 0;
    const failure = new NotFoundError({
      httpStatus: 404,
      code: 5,
      serviceMessage: "Not found: parent",
      details: [],
      method: "POST",
      path: "/x",
    });
    await expect(
      createOrAdopt(
        {
          create: async () => {
            throw failure;
          },
          lookup: async () => {
            lookups++;
            return undefined;
          },
        },
        false,
      ),
    ).rejects.toBe(failure);
    expect(lookups).toBe(0);
  });
});

describe("a provider without configuration", () => {
  it("fails with how to set platform:apiUrl / PLATFORM_API_URL, before any request", async () => {
    const saved = { ...process.env };
    for (const key of Object.keys(process.env)) if (key.startsWith("PLATFORM_")) delete process.env[key];
    try {
      const { configureFromLookup, closeClients } = await import("../../provider/core/client");
      const provider = (await import("../../provider/iam/group.provider")).default;
      await configureFromLookup(() => undefined);
      await expect(provider.create({ name: "eng" })).rejects.toThrow(/platform:apiUrl.*PLATFORM_API_URL/s);
      await closeClients();
    } finally {
      process.env = saved;
    }
  });
});
