/**
 * The names an access tool's output uses: one `Names` (../../sdk/words) per output, made from everything the output
 * may mention (both reviews, for the changes between them), so a name is told apart from every other it could be
 * confused with there. How a name and its kind are written is the shared words' (text, and Markdown through
 * ../markdown); the page escapes the raw names as HTML.
 */
import { Names } from "../../sdk/words";

/** Something with a uid and a name (the name may be missing or empty when the caller cannot read it). */
export interface UidAndName {
  uid: string;
  name?: string | undefined;
}

export interface NameSources {
  identities?: readonly UidAndName[];
  groups?: readonly UidAndName[];
  roles?: readonly UidAndName[];
}

/** The names an output uses; the first source to name a uid wins (give the newest first). */
export function namesFrom(...sources: NameSources[]): Names {
  const names = new Names();
  for (const s of sources) {
    for (const i of s.identities ?? []) names.add("identity", i.uid, i.name);
    for (const g of s.groups ?? []) names.add("group", g.uid, g.name);
    for (const r of s.roles ?? []) names.add("role", r.uid, r.name);
  }
  return names;
}
