/**
 * `platform-access least-privilege --state FILE`: the smallest role a stack's updates need, from its state (and the
 * organization's roles, one list), as YAML and TypeScript of a Role and its binding, or JSON.
 */
import { lineText } from "../../../sdk/words";
import { Refusal, readText } from "../../command";
import { PAGE_SIZE } from "../../reading";
import {
  leastPrivilege,
  leastPrivilegeTypeScript,
  leastPrivilegeYaml,
  parseNeed,
  stackObjects,
} from "../least-privilege";
import type { RunCommand } from "./shared";
import { rootOf } from "../../../sdk/uidp";

const FORMATS = ["yaml", "typescript", "json", "yaml+typescript"];

export const run: RunCommand = async (p, io, connect) => {
  const files = p.values("--state");
  if (files.length === 0) throw new Refusal(`least-privilege needs --state FILE (pulumi stack export)`);
  const format = p.value("--format")!;
  if (!FORMATS.includes(format))
    throw new Refusal(`--format is yaml, typescript or json, not ${JSON.stringify(format)}`);
  const extra = p.values("--need").map(parseNeed);
  const texts = files.map((file) => ({ file, text: readText(file) }));
  const read = texts.map(({ file, text }) => stackObjects(text, file));
  const objects = read.flatMap((s) => s.objects);
  if (objects.length === 0) throw new Refusal(`the state holds no resource of this package`);
  // Roles the state does not hold (built-in ones, others' custom roles): one list of the organization's.
  const roots = [...new Set(objects.map((o) => rootOf(o.uid)))];
  const c = connect();
  const roles = new Map<string, string[]>();
  for (const root of roots)
    for await (const role of c.roles.list({ descendantsOf: root, pageSize: PAGE_SIZE }))
      roles.set(role.uid, role.capabilities ?? []);
  const lp = leastPrivilege(objects, {
    roleCapabilities: (uid) => roles.get(uid),
    withUpdate: p.has("--with-update"),
    extra,
  });
  const identity = p.value("--identity");
  for (const note of [...read.flatMap((s) => s.notes), ...lp.notes]) io.stderr(`note: ${lineText(note)}`);
  if (format === "json") io.stdout(`${JSON.stringify(lp, null, 2)}\n`);
  if (format === "yaml" || format === "yaml+typescript") io.stdout(leastPrivilegeYaml(lp, identity));
  if (format === "yaml+typescript") io.stdout("\n---\n\n");
  if (format === "typescript" || format === "yaml+typescript")
    io.stdout(leastPrivilegeTypeScript(lp, identity));
  return 0;
};
