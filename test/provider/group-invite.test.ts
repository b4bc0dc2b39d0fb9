/** platform.iam.GroupInvite's provider against the in-process emulator: replace-only, secret code, ttl. */
import provider = require("../../provider/iam/group-invite.provider");
import { durationSeconds, protoDuration } from "../../provider/iam/group-invite.declaration";
import { useHarness } from "./harness";

const h = useHarness();

async function inputs(overrides: Record<string, unknown> = {}) {
  const role = await h.emulator.client.roles.create(h.emulator.orgUid, {
    name: "joiner",
    capabilities: ["CAP_REPO_LIST"],
  });
  const checked = await provider.check!(
    {},
    {
      groupUid: h.emulator.orgUid,
      roleUid: role.uid,
      ttl: "72h",
      email: "dev@example.com",
      ...overrides,
    },
  );
  expect(checked.failures ?? []).toEqual([]);
  return checked.inputs as Record<string, unknown>;
}

describe("ttl parsing", () => {
  it.each([
    ["72h", 259_200],
    ["90m", 5_400],
    ["1h30m", 5_400],
    ["3600s", 3_600],
    ["1d", 86_400],
    ["86400.5s", 86_400.5],
  ])("%s is %d seconds", (text, seconds) => {
    expect(durationSeconds(text)).toBe(seconds);
    expect(protoDuration(text)).toBe(`${seconds}s`);
  });

  it.each(["", "72", "h", "3 days", "-1h", "1w"])("%j is not a duration", (text) => {
    expect(durationSeconds(text)).toBeUndefined();
  });
});

describe("group invite", () => {
  it("creates with ttl sent as protobuf seconds and returns the code and expiration, no copy of the role", async () => {
    const news = await inputs();
    h.mark();
    const { id, outs } = await provider.create(news);
    const [post, ...rest] = h.requestsSinceMark();
    expect(rest).toEqual([]);
    expect([post!.method, post!.path]).toEqual(["POST", `/iam/v2beta1/groupInvites/${h.emulator.orgUid}`]);
    const now = h.emulator.clock.now().getTime();
    expect(outs).toMatchObject({
      uid: id,
      groupUid: h.emulator.orgUid,
      roleUid: news.roleUid,
      ttl: "72h",
      email: "dev@example.com",
      singleUse: false,
    });
    expect(outs).not.toHaveProperty("role");
    expect(outs.code).toMatch(/^invite_/);
    expect(typeof outs.keyId).toBe("string");
    const expires = Date.parse(outs.expirationTime as string);
    expect(Math.abs(expires - (now + 72 * 3_600_000))).toBeLessThan(5_000);
  });

  it("read keeps the code and ttl the service does not return, and refresh shows no diff", async () => {
    const news = await inputs();
    const { id, outs } = await provider.create(news);
    const live = await h.emulator.client.groupInvites.get(id);
    expect(live.code).toBeUndefined();
    const read = await provider.read!(id, outs);
    expect(read.props).toMatchObject({ code: outs.code, ttl: "72h", uid: id });
    expect(read.inputs).toMatchObject({ ttl: "72h", roleUid: news.roleUid, email: "dev@example.com" });
    expect(await provider.diff!(id, read.props!, news)).toMatchObject({ changes: false, replaces: [] });
  });

  it("every changed input replaces; the same ttl written differently does not", async () => {
    const news = await inputs();
    const { id, outs } = await provider.create(news);
    expect(await provider.diff!(id, outs, { ...news, ttl: "259200s" })).toMatchObject({
      changes: false,
      replaces: [],
    });
    const other = await h.emulator.client.roles.create(h.emulator.orgUid, {
      name: "other",
      capabilities: ["CAP_REPO_LIST"],
    });
    const diff = await provider.diff!(id, outs, {
      ...news,
      ttl: "24h",
      email: "ops@example.com",
      singleUse: true,
      roleUid: other.uid,
    });
    expect(diff.changes).toBe(true);
    expect([...(diff.replaces ?? [])].sort()).toEqual(["email", "roleUid", "singleUse", "ttl"]);
  });

  it("a profile-only update sends nothing", async () => {
    const news = await inputs();
    const { id, outs } = await provider.create(news);
    h.mark();
    const { outs: updated } = await provider.update!(id, outs, { ...news, profile: "other" });
    expect(h.requestsSinceMark()).toEqual([]);
    expect(updated).toMatchObject({ profile: "other", code: outs.code });
  });

  it("after expiry on the emulator clock the invite is still read (code kept) until the service deletes it", async () => {
    const news = await inputs({ ttl: "1h" });
    const { id, outs } = await provider.create(news);
    h.emulator.clock.advance(2 * 3_600_000);
    const expired = await provider.read!(id, outs);
    expect(expired.id).toBe(id);
    expect(expired.props).toMatchObject({ code: outs.code });
    expect(Date.parse(expired.props!.expirationTime as string)).toBeLessThan(
      h.emulator.clock.now().getTime(),
    );
    // The service removing it (expiry cleanup or by hand): gone, so the next up creates a new invite.
    await h.emulator.client.groupInvites.delete(id);
    expect((await provider.read!(id, outs)).id).toBeUndefined();
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
  });

  it("read after an out-of-band rename of the role reports the same state: no stale copy to refresh", async () => {
    const news = await inputs();
    const { id, outs } = await provider.create(news);
    await h.emulator.client.roles.update(news.roleUid as string, { name: "renamed" });
    const read = await provider.read!(id, outs);
    expect(read.props).toEqual(outs);
  });

  it("deletes", async () => {
    const { id, outs } = await provider.create(await inputs());
    h.mark();
    await provider.delete!(id, outs);
    expect(h.requestsSinceMark().map((r) => [r.method, r.path])).toEqual([
      ["DELETE", `/iam/v2beta1/groupInvites/${id}`],
    ]);
    await expect(h.emulator.client.groupInvites.get(id)).rejects.toThrow(/not found/i);
  });

  it("an expirationTime instead of a ttl is sent as the time left, kept as given, and refreshes clean", async () => {
    const requested = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const news = await inputs({ ttl: undefined, expirationTime: requested });
    const sentAt = Date.now();
    const { id, outs } = await provider.create(news);
    const live = await h.emulator.client.groupInvites.get(id);
    // The service's expiry is its own clock at creation plus the ttl that was sent: about two hours.
    const ttlSent = Date.parse(live.expirationTime!) - Date.parse(live.createTime!);
    expect(Math.abs(ttlSent - (Date.parse(requested) - sentAt))).toBeLessThan(5_000);
    expect(outs).toMatchObject({ expirationTime: requested });
    expect(outs.ttl).toBeUndefined();
    const read = await provider.read!(id, outs);
    expect(read.inputs).toMatchObject({ expirationTime: requested });
    expect(read.props).toMatchObject({ expirationTime: requested, code: outs.code });
    expect(await provider.diff!(id, read.props!, news)).toMatchObject({ changes: false, replaces: [] });
    const later = new Date(Date.parse(requested) + 60_000).toISOString();
    expect(await provider.diff!(id, outs, { ...news, expirationTime: later })).toMatchObject({
      changes: true,
      replaces: ["expirationTime"],
    });
    const toTtl = await provider.diff!(id, outs, { ...news, expirationTime: undefined, ttl: "2h" });
    expect([...(toTtl.replaces ?? [])].sort()).toEqual(["expirationTime", "ttl"]);
  });

  it("in ttl form the live expirationTime is an output only, never compared", async () => {
    const news = await inputs();
    const { id, outs } = await provider.create(news);
    const read = await provider.read!(id, outs);
    expect(read.inputs).not.toHaveProperty("expirationTime");
    expect(typeof read.props!.expirationTime).toBe("string");
    expect(await provider.diff!(id, read.props!, news)).toMatchObject({ changes: false });
  });

  it("check refuses a new expirationTime in the past, but not one that has passed since creation", async () => {
    const base = {
      groupUid: h.emulator.orgUid,
      roleUid: "b".repeat(40),
      expirationTime: "2020-01-01T00:00:00Z",
    };
    h.mark();
    const fresh = await provider.check!({}, base);
    expect(fresh.failures).toEqual([
      { property: "expirationTime", reason: "expirationTime 2020-01-01T00:00:00Z is not in the future" },
    ]);
    const unchanged = await provider.check!({ ...base, singleUse: false }, base);
    expect(unchanged.failures ?? []).toEqual([]);
    expect(h.requestsSinceMark()).toHaveLength(0);
  });

  it("an expirationTime already past fails the create before any API call, naming it", async () => {
    // Checked in time, but the moment passed before create ran (a long preview, a slow update).
    const news = { ...(await inputs()), ttl: undefined, expirationTime: "2020-01-01T00:00:00Z" };
    h.mark();
    await expect(provider.create(news)).rejects.toThrow(
      /expirationTime 2020-01-01T00:00:00Z is not in the future/,
    );
    expect(h.requestsSinceMark()).toHaveLength(0);
  });

  it("check wants exactly one of ttl and expirationTime", async () => {
    const base = { groupUid: h.emulator.orgUid, roleUid: "b".repeat(40) };
    h.mark();
    const neither = await provider.check!({}, base);
    expect(neither.failures?.map((f) => f.property)).toEqual(["ttl"]);
    const both = await provider.check!({}, { ...base, ttl: "1h", expirationTime: "2030-01-01T00:00:00Z" });
    expect(both.failures?.map((f) => [f.property, f.reason])).toEqual([
      ["expirationTime", "give a ttl or an expirationTime, not both"],
    ]);
    expect(h.requestsSinceMark()).toHaveLength(0);
  });

  it("check rejects a bad ttl and email, naming each, with zero API calls", async () => {
    const role = await h.emulator.client.roles.create(h.emulator.orgUid, {
      name: "r",
      capabilities: ["CAP_REPO_LIST"],
    });
    h.mark();
    const { failures } = await provider.check!(
      {},
      {
        groupUid: h.emulator.orgUid,
        roleUid: role.uid,
        ttl: "3 days",
        email: "not-an-email",
      },
    );
    expect(failures?.map((f) => f.property).sort()).toEqual(["email", "ttl"]);
    expect(failures?.find((f) => f.property === "ttl")?.reason).toMatch(/72h/);
    const zero = await provider.check!({}, { groupUid: h.emulator.orgUid, roleUid: role.uid, ttl: "0s" });
    expect(zero.failures?.map((f) => [f.property, f.reason])).toEqual([
      ["ttl", "ttl must be longer than zero"],
    ]);
    expect(h.requestsSinceMark()).toHaveLength(0);
  });
});
