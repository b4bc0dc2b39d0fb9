import { ZodError } from "zod";
import {
  ApiError,
  ConnectionError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  PlatformError,
  ResponseValidationError,
  UnauthenticatedError,
  InternalError,
  UnavailableError,
  AlreadyExistsError,
  makeApiError,
} from "../../sdk";
import {
  INVALID_NAME_BODY,
  NOT_EMPTY_BODY,
  aip193,
  answer,
  failure,
  harness,
  group,
  ORG,
  FOLDER,
  TOKEN,
} from "./helpers";

describe("errors from AIP-193 bodies", () => {
  it("code 3 with BadRequest becomes InvalidArgumentError with its field violations, reason and domain", async () => {
    const { api, client } = harness();
    answer(api, 400, INVALID_NAME_BODY);
    const err = await failure(client.groups.create(ORG, { name: "Bad Name!" }));
    expect(InvalidArgumentError.isInstance(err)).toBe(true);
    expect(ApiError.isInstance(err)).toBe(true);
    expect(PlatformError.isInstance(err)).toBe(true);
    expect(NotFoundError.isInstance(err)).toBe(false);
    const e = err as InvalidArgumentError;
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(e.httpStatus).toBe(400);
    expect(e.code).toBe(3);
    expect(e.grpcCodeName).toBe("INVALID_ARGUMENT");
    expect(e.reason).toBe("INVALID_ARGUMENT");
    expect(e.domain).toBe("iam.test.example");
    expect(e.fieldViolations).toEqual([{ field: "name", description: "name must match ^[a-z0-9 ._-]{1,}$" }]);
    expect(e.method).toBe("POST");
    expect(e.path).toBe(`/iam/v2beta1/groups/${ORG}`);
    expect(e.message).toBe(
      `POST /iam/v2beta1/groups/${ORG}: Invalid argument: name must match ^[a-z0-9 ._-]{1,}$ (field name: name must match ^[a-z0-9 ._-]{1,}$)`,
    );
  });

  it("code 9 with PreconditionFailure RESOURCE_NOT_EMPTY becomes FailedPreconditionError", async () => {
    const { api, client } = harness();
    answer(api, 400, NOT_EMPTY_BODY);
    const err = await failure(client.groups.delete(ORG));
    expect(FailedPreconditionError.isInstance(err)).toBe(true);
    expect(InvalidArgumentError.isInstance(err)).toBe(false);
    const e = err as FailedPreconditionError;
    expect(e.reason).toBe("FAILED_PRECONDITION");
    expect(e.preconditionViolations).toEqual([
      { type: "RESOURCE_NOT_EMPTY", subject: ORG, description: "group still has 2 repos" },
    ]);
    expect(e.message).toContain(
      `DELETE /iam/v2beta1/groups/${ORG}: Precondition failed: group has child resources`,
    );
    expect(e.message).toContain("RESOURCE_NOT_EMPTY");
  });

  it("the class follows the body's code, not the HTTP status", async () => {
    const { api, client } = harness();
    answer(api, 400, aip193(5, "Not found: group"));
    const err = await failure(client.groups.get(FOLDER));
    expect(NotFoundError.isInstance(err)).toBe(true);
    expect((err as ApiError).httpStatus).toBe(400);
  });

  it.each([
    // (An expired static token gets its own message, naming the setting: test/sdk/production-habits.test.ts.)
    [401, 16, UnauthenticatedError, "Unauthenticated: token revoked"],
    [403, 7, PermissionDeniedError, "Permission denied: no role on group"],
    [404, 5, NotFoundError, "Not found: group"],
    [409, 6, AlreadyExistsError, "Already exists: group"],
    [500, 13, InternalError, "Internal: boom"],
  ] as const)("HTTP %i with code %i becomes its class", async (status, code, Class, message) => {
    const { api, client } = harness({ maxRetries: 0 });
    answer(api, status, aip193(code, message));
    const err = await failure(client.groups.get(FOLDER));
    expect(Class.isInstance(err)).toBe(true);
    expect((err as ApiError).code).toBe(code);
    expect((err as ApiError).message).toBe(`GET /iam/v2beta1/groups/${FOLDER}: ${message}`);
  });

  it.each([
    [401, UnauthenticatedError, 16],
    [403, PermissionDeniedError, 7],
    [404, NotFoundError, 5],
    [503, UnavailableError, 14],
  ] as const)("a non-JSON %i body falls back to the HTTP status", async (status, Class, code) => {
    const { api, client } = harness({ maxRetries: 0 });
    answer(api, status, "<html><body>upstream says no</body></html>", {
      headers: { "content-type": "text/html" },
    });
    const err = await failure(client.groups.get(FOLDER));
    expect(Class.isInstance(err)).toBe(true);
    expect((err as ApiError).code).toBe(code);
    expect((err as ApiError).message).toBe(
      `GET /iam/v2beta1/groups/${FOLDER}: HTTP ${status}: <html><body>upstream says no</body></html>`,
    );
  });

  it("a JSON body that is not AIP-193 also falls back to the status", async () => {
    const { api, client } = harness();
    answer(api, 404, { error: "nope" });
    expect(NotFoundError.isInstance(await failure(client.groups.get(FOLDER)))).toBe(true);
  });

  it("an unknown code stays a plain ApiError", () => {
    const e = makeApiError({
      method: "GET",
      path: "/p",
      httpStatus: 501,
      bodyText: JSON.stringify(aip193(12, "Unimplemented: x")),
    });
    expect(ApiError.isInstance(e)).toBe(true);
    expect(e.constructor).toBe(ApiError);
    expect(e.grpcCodeName).toBe("UNIMPLEMENTED");
  });

  it("unknown detail types are kept as they came", () => {
    const body = {
      code: 3,
      message: "Invalid argument: x",
      details: [{ "@type": "type.example/Other", extra: 1 }],
    };
    const e = makeApiError({ method: "GET", path: "/p", httpStatus: 400, bodyText: JSON.stringify(body) });
    expect(e.details).toEqual([{ "@type": "type.example/Other", extra: 1 }]);
  });
});

describe("no token in any error", () => {
  it("a service message echoing the token is redacted, in message and details", async () => {
    const { api, client } = harness();
    answer(api, 401, {
      code: 16,
      message: `Unauthenticated: token ${TOKEN} is invalid`,
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "UNAUTHENTICATED",
          domain: "d",
          metadata: { token: TOKEN },
        },
      ],
    });
    const err = (await failure(client.groups.get(FOLDER))) as ApiError;
    expect(UnauthenticatedError.isInstance(err)).toBe(true);
    expect(err.message).not.toContain(TOKEN);
    expect(err.message).toContain("[redacted]");
    expect(JSON.stringify(err.details)).not.toContain(TOKEN);
    expect(JSON.stringify(err)).not.toContain(TOKEN);
    expect(String(err.stack)).not.toContain(TOKEN);
  });

  it("a connection error message quoting the token is redacted", async () => {
    const { api, client } = harness({ maxRetries: 0 });
    api
      .intercept({ path: () => true, method: "GET" })
      .replyWithError(new Error(`socket hang up while sending Bearer ${TOKEN}`));
    const err = (await failure(client.groups.get(FOLDER))) as ConnectionError;
    expect(ConnectionError.isInstance(err)).toBe(true);
    expect(err.message).not.toContain(TOKEN);
  });

  it("no error class carries the Authorization header", async () => {
    const { api, client } = harness({ maxRetries: 0 });
    answer(api, 403, aip193(7, "Permission denied: x"));
    const err = await failure(client.groups.get(FOLDER));
    const dump = JSON.stringify(err, Object.getOwnPropertyNames(err)) + String((err as Error).stack);
    expect(dump).not.toContain(TOKEN);
    expect(dump.toLowerCase()).not.toContain("authorization");
  });
});

describe("response validation", () => {
  it("a 2xx body that misses required fields becomes ResponseValidationError naming method, path and fields", async () => {
    const { api, client } = harness();
    answer(api, 200, { name: 42 });
    const err = (await failure(client.groups.get(FOLDER))) as ResponseValidationError;
    expect(ResponseValidationError.isInstance(err)).toBe(true);
    expect(err.fields.sort()).toEqual(["name", "uid"]);
    expect(err.message).toMatch(new RegExp(`^GET /iam/v2beta1/groups/${FOLDER}: unexpected response body: `));
    expect(err.message).toContain("uid:");
    expect(err.name).toBe("ResponseValidationError");
    expect(err).not.toBeInstanceOf(ZodError);
  });

  it("a 2xx body that is not JSON is a ResponseValidationError too", async () => {
    const { api, client } = harness();
    answer(api, 200, "not json at all");
    const err = await failure(client.groups.get(FOLDER));
    expect(ResponseValidationError.isInstance(err)).toBe(true);
    expect((err as Error).message).toContain("body is not JSON");
  });

  it("unknown response fields are dropped, not rejected", async () => {
    const { api, client } = harness();
    answer(api, 200, { ...group(FOLDER), brandNewField: { x: 1 } });
    const g = await client.groups.get(FOLDER);
    expect(g).not.toHaveProperty("brandNewField");
    expect(g.uid).toBe(FOLDER);
  });
});

describe("isInstance across module copies", () => {
  it("an error from one copy of the module is recognised by another copy's classes", () => {
    let Other: typeof import("../../sdk/errors") | undefined;
    jest.isolateModules(() => {
      Other = require("../../sdk/errors") as typeof import("../../sdk/errors");
    });
    if (!Other) throw new Error("module copy not loaded");
    expect(Other.InvalidArgumentError).not.toBe(InvalidArgumentError);
    const foreign = Other.makeApiError({
      method: "POST",
      path: "/p",
      httpStatus: 400,
      bodyText: JSON.stringify(INVALID_NAME_BODY),
    });
    expect(foreign).not.toBeInstanceOf(InvalidArgumentError);
    expect(InvalidArgumentError.isInstance(foreign)).toBe(true);
    expect(ApiError.isInstance(foreign)).toBe(true);
    expect(PlatformError.isInstance(foreign)).toBe(true);
    expect(FailedPreconditionError.isInstance(foreign)).toBe(false);
    expect(PlatformError.isInstance(new Error("plain"))).toBe(false);
    expect(PlatformError.isInstance(null)).toBe(false);
  });
});
