/**
 * platform.iam.GroupInvite, declared once (../core/declaration), and the friendly-duration parser behind `ttl`.
 * The API has no update, so every field replaces the invite.
 */
import { z } from "zod";
import { RoleUid, Uidp } from "../../sdk/schemas";
import { declareResource, input, output } from "../core/declaration";
import { durationSeconds } from "./duration";

export { durationSeconds };

/** A friendly duration as a protobuf Duration in JSON ("259200s"), nanosecond precision at most. */
export function protoDuration(text: string): string {
  const seconds = durationSeconds(text);
  if (seconds === undefined) throw new Error(`ttl "${text}" is not a duration`);
  return `${Number(seconds.toFixed(9))}s`;
}

/** The protobuf Duration from `now` until `expirationTime` (millisecond precision); undefined if not ahead. */
export function durationUntil(expirationTime: string, now: number): string | undefined {
  const ms = Date.parse(expirationTime) - now;
  if (!(ms > 0)) return undefined;
  return `${Number((ms / 1000).toFixed(3))}s`;
}

const REPLACES = "Changing it replaces the invite.";

export const GROUP_INVITE = declareResource({
  token: "platform:iam:GroupInvite",
  stem: "group-invite",
  summary:
    "A code that grants a role on a group when accepted. No update in the API: every change replaces it; code is a secret returned only at creation.",
  importId: "the invite's uid",
  inputs: {
    groupUid: input(Uidp, {
      doc: `The group the invite grants a role on. ${REPLACES}`,
      replaces: true,
      inPath: true,
    }),
    roleUid: input(RoleUid, {
      doc: `The role granted on acceptance: a custom role's uid or a built-in 40-hex uid. ${REPLACES}`,
      replaces: true,
    }),
    ttl: input(
      z
        .string()
        .optional()
        .refine((text) => text === undefined || durationSeconds(text) !== undefined, {
          error: 'ttl must be a duration such as "72h", "90m", "1h30m" or "3600s"',
        })
        .refine((text) => text === undefined || (durationSeconds(text) ?? 1) > 0, {
          error: "ttl must be longer than zero",
        }),
      {
        doc: `How long the invite is valid from its creation, e.g. "72h" or "3600s" (units d, h, m, s). Give ttl or expirationTime. ${REPLACES}`,
        replaces: true,
      },
    ),
    // Compared with the program's previous expirationTime, kept in state (see group-invite.implementation.ts).
    expirationTime: input(
      z.iso
        .datetime({
          offset: true,
          error: "expirationTime must be an RFC 3339 time such as 2026-12-31T23:59:59Z",
        })
        .optional(),
      {
        doc: `When the invite expires (RFC 3339), instead of a ttl; sent as the ttl left at creation. ${REPLACES}`,
        replaces: true,
      },
    ),
    email: input(z.email({ error: "email must be an email address" }).optional(), {
      doc: `Only this email address may accept the invite. ${REPLACES}`,
      replaces: true,
      default: "",
    }),
    singleUse: input(z.boolean().optional(), {
      doc: `The invite works once. Default false. ${REPLACES}`,
      replaces: true,
      default: false,
    }),
  },
  outputs: {
    uid: output(z.string(), "The invite's uid, assigned by the service."),
    code: output(
      z.string(),
      "The code to hand to the invitee. Secret; returned by the service only at creation.",
      { secret: true },
    ),
    expirationTime: output(z.string(), "When the invite expires (RFC 3339)."),
    keyId: output(z.string(), "The id of the key the code is signed with."),
    createTime: output(z.string(), "When the invite was created (RFC 3339)."),
  },
  refine(inputs, ctx) {
    if (inputs.ttl === undefined && inputs.expirationTime === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["ttl"],
        message: 'give a ttl (e.g. "72h") or an expirationTime',
      });
    if (inputs.ttl !== undefined && inputs.expirationTime !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["expirationTime"],
        message: "give a ttl or an expirationTime, not both",
      });
  },
});

export const GroupInviteInputSchema = GROUP_INVITE.inputSchema;
export type GroupInviteInputs = z.infer<typeof GroupInviteInputSchema>;
