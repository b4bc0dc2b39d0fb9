/**
 * `platform-access who-can <CAPABILITY> --on <group uid>`: who holds the capability on the group, and through which
 * binding.
 */
import { Refusal } from "../../command";
import { grantsCsv } from "../review-csv";
import { grantsText } from "../review-text";
import { namesOf } from "../review-names";
import { review, whoCan } from "../review";
import { formatOf, readGroup, warnPartial, type RunCommand } from "./shared";

const CAPABILITY = /^CAP_[A-Z0-9_]+$/;

export const run: RunCommand = async (p, io, connect) => {
  const capability = p.args[0]!;
  if (!CAPABILITY.test(capability))
    throw new Refusal(`${JSON.stringify(capability)} is not a capability (e.g. CAP_IAM_GROUPS_LIST)`);
  const on = p.value("--on");
  if (on === undefined) throw new Refusal(`who-can needs --on <group uid>`);
  const format = formatOf(p);
  const data = await readGroup(on, io, connect);
  const r = review(data);
  warnPartial(r, io);
  const grants = whoCan(data, capability, on);
  if (format === "json")
    io.stdout(
      `${JSON.stringify({ capability, group: on, groupName: r.group.name, partial: r.partial, grants }, null, 2)}\n`,
    );
  else if (format === "csv") io.stdout(grantsCsv(grants, r));
  else if (format === "markdown") {
    const { whoCanMarkdown } = require("../review-markdown") as typeof import("../review-markdown");
    io.stdout(whoCanMarkdown(capability, on, grants, r));
  } else io.stdout(grantsText(`who holds ${capability} on ${namesOf(r).group(on)}:`, grants, r));
  return 0;
};
