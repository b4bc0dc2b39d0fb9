/** Test helpers: a client wired to an undici MockAgent, and AIP-193 bodies from the spec's examples. */
import { MockAgent } from "undici";
import { PlatformClient, type PlatformClientOptions } from "../../sdk";

export const API = "https://api.test.example";
export const TOKEN = "static-secret-token-0123456789";
export const ORG = "0123456789abcdef";
export const FOLDER = `${ORG}/fedcba9876543210`;
export const JSON_HEADERS = { "content-type": "application/json" };

export interface Harness {
  agent: MockAgent;
  api: ReturnType<MockAgent["get"]>;
  client: PlatformClient;
  sleeps: number[];
}

/** A client on a MockAgent with no real network, zero retry delay and recorded sleeps. */
export function harness(options: PlatformClientOptions = {}): Harness {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const sleeps: number[] = [];
  const client = new PlatformClient({
    apiUrl: API,
    token: TOKEN,
    env: {},
    retryBaseDelayMs: 0,
    dispatcher: agent,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { agent, api: agent.get(API), client, sleeps };
}

export function group(uid: string, name = "folder") {
  return { uid, name, description: "", resourceLimits: {}, verified: false, createTime: "2026-01-02T03:04:05.678Z", updateTime: "2026-01-02T03:04:05.678Z" };
}
