/**
 * The SDK against the in-process emulator with what the real service produces: 40-hex organization
 * uids, JWT API tokens from an exchange, identities of every kind, and the lookups.
 */
import { exportJWK, generateKeyPair } from "jose";
import { startEmulator, type Emulator } from "../../emulator";
import { NotFoundError, PlatformClient, Uidp } from "../../sdk";

let emulator: Emulator;
let client: PlatformClient;
const ISSUER = "https://token.actions.example";

beforeAll(async () => {
  emulator = await startEmulator();
  client = new PlatformClient({ apiUrl: emulator.url, token: emulator.token, maxRetries: 0 });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

describe("real-shaped uids and tokens", () => {
  test("a 40-hex organization and its children pass the SDK's uid schema and round-trip", async () => {
    expect(emulator.orgUid).toMatch(/^[0-9a-f]{40}$/);
    const folder = await client.groups.create(emulator.orgUid, { name: "real-shaped" });
    expect(folder.uid).toMatch(new RegExp(`^${emulator.orgUid}/[0-9a-f]{16}$`));
    expect(Uidp.parse(folder.uid)).toBe(folder.uid);
    expect((await client.groups.get(folder.uid)).name).toBe("real-shaped");
  });

  test("an exchanging client (GET with query parameters) gets a JWT and uses it", async () => {
    const identity = await client.identities.create(emulator.orgUid, {
      name: "sdk-workload",
      claimMatch: { issuer: `${emulator.url}/oidc`, subject: "sdk" },
    });
    const viewer = (await client.roles.list({ name: "viewer" })).items[0]!.uid;
    await client.roleBindings.create(emulator.orgUid, { identityUid: identity.uid, roleUid: viewer });
    const workload = new PlatformClient({
      apiUrl: emulator.url,
      identity: identity.uid,
      identityToken: await emulator.mintIdToken({ subject: "sdk" }),
      maxRetries: 0,
    });
    try {
      expect((await workload.groups.get(emulator.orgUid)).uid).toBe(emulator.orgUid);
    } finally {
      await workload.close();
    }
    expect((await client.identities.get(identity.uid)).lastSeenTime).toBeDefined();
    expect(emulator.token.split(".")).toHaveLength(3);
  });
});

describe("every kind of identity and the lookups", () => {
  test("staticKeys and awsIdentity come back typed", async () => {
    const { publicKey } = await generateKeyPair("ES256");
    const issuerKeys = JSON.stringify({ keys: [await exportJWK(publicKey)] });
    const keyed = await client.identities.create(emulator.orgUid, {
      name: "keyed",
      staticKeys: { issuer: ISSUER, subject: "builder", issuerKeys },
    });
    expect(keyed.staticKeys).toMatchObject({ issuer: ISSUER, subject: "builder", issuerKeys });
    expect(keyed.staticKeys?.expirationTime).toEqual(expect.any(String));
    const aws = await client.identities.create(emulator.orgUid, {
      name: "aws",
      awsIdentity: { awsAccount: "123456789012", arnPattern: "arn:aws:iam::123456789012:role/.*" },
    });
    expect(aws.awsIdentity).toEqual({
      awsAccount: "123456789012",
      arnPattern: "arn:aws:iam::123456789012:role/.*",
    });
    // A nested update changes one member only (AIP-134).
    const updated = await client.identities.update(keyed.uid, { name: "keyed-2" });
    expect(updated.staticKeys).toEqual(keyed.staticKeys);
  });

  test("identities.lookup, v1.identities.lookup and v1.groups.list({ id })", async () => {
    const identity = await client.identities.create(emulator.orgUid, {
      name: "lookup-me",
      claimMatch: { issuer: ISSUER, subject: "repo:acme/web" },
    });
    expect(await client.identities.lookup({ issuer: ISSUER, subject: "repo:acme/web" })).toEqual({
      uid: identity.uid,
    });
    expect((await client.identities.lookup({ issuer: ISSUER, subject: "nobody" })).uid).toMatch(
      /^[0-9a-f]{40}$/,
    );
    expect((await client.v1.identities.lookup({ issuer: ISSUER, subject: "repo:acme/web" })).id).toBe(
      identity.uid,
    );
    const missing = await client.v1.identities.lookup({ issuer: ISSUER, subject: "nobody" }).catch((e) => e);
    expect(NotFoundError.isInstance(missing)).toBe(true);
    const groups = await client.v1.groups.list({ id: emulator.orgUid });
    expect(groups.map((g) => g.id)).toEqual([emulator.orgUid]);
  });
});
