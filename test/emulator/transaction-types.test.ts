/**
 * A store transaction and a route's handler are synchronous by their types: a callback that returns a promise does
 * not compile (the `@ts-expect-error` lines fail typecheck the day it would), and one typed `unknown` that slips past
 * the type is refused at run time, its writes undone.
 */
import { route } from "../../emulator/routes/table";
import { staged, type RouteContext } from "../../emulator/routes/types";
import { MemoryStore } from "../../emulator/store";

const group = (uid: string) => ({ uid, parent: "", createTime: "", updateTime: "", fields: {} });

test("a promise-returning transaction does not compile, and is refused and undone at run time", () => {
  const store = new MemoryStore();
  // @ts-expect-error an async callback is not a transaction
  expect(() => store.transaction(async () => store.put("groups", group("a")))).toThrow(/synchronous/);
  // @ts-expect-error nor one that returns a promise
  expect(() => store.transaction(() => (store.put("groups", group("b")), Promise.resolve(1)))).toThrow(
    /synchronous/,
  );
  const untyped = (): unknown => (store.put("groups", group("c")), Promise.resolve(1));
  expect(() => store.transaction(untyped)).toThrow(/synchronous/);
  expect(store.count("groups")).toBe(0);
  expect(store.transaction(() => (store.put("groups", group("d")), 42))).toBe(42);
  expect(store.count("groups")).toBe(1);
});

test("a route's handler may not be async; awaited work goes in a staged route's prepare", () => {
  // @ts-expect-error an async handler would let other requests in between its reads and writes
  route("GET /x", async (_ctx: RouteContext) => ({}));
  const built = route(
    "GET /x",
    staged(
      async () => 1,
      (_ctx, prepared) => ({ prepared }),
    ),
  );
  expect(typeof built.prepare).toBe("function");
  expect(built.handler({ prepared: 1 } as RouteContext)).toEqual({ prepared: 1 });
  const asyncStep = async (): Promise<object> => ({});
  // @ts-expect-error the second step of a staged route is synchronous too
  staged(async () => 1, asyncStep);
});
