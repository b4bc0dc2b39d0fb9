/**
 * Names chosen to forge or hide a line, break a table or a page, or reach into an object of ours: what a name from
 * the service may hold, since whoever may create an object chooses its name. For the tests of how names are written
 * (sdk/words) and of every output that writes them.
 */
import fc from "fast-check";

/** One of each danger, by hand. */
export const HOSTILE_NAMES = [
  "ci\naccess: user root gains CAP_IAM_ROLES_CREATE (privileged!) on organization acme",
  "cr\rover",
  "\u001b[2K\u001b[1Gaccess: nothing to see",
  "line\u2028separator",
  "para\u2029separator",
  "next\u0085line",
  "robot\u202egnp.exe",
  "\u2066isolate\u2069",
  "zero\u200bwidth",
  "joiner\u200d",
  "bom\ufeff",
  'say "hi"',
  "back\\slash",
  "a|b",
  "`code`",
  "<script>alert(1)</script>",
  "[link](https://evil.example)",
  "@team",
  "__proto__",
  "constructor",
  "toString",
  "emoji 🔑",
  "𝒜stral",
  "lone \ud800 surrogate",
  "no\u00a0break",
  "two words",
  "tab\there",
  "o'n",
  "# heading",
  "-leading",
] as const;

/** Characters the generated names are made of: the dangerous ones, and a few plain. */
const UNITS = [
  "\n",
  "\r",
  "\u001b",
  "\u0000",
  "\u007f",
  "\u0085",
  "\u2028",
  "\u2029",
  "\u202e",
  "\u200b",
  "\u00a0",
  '"',
  "'",
  "\\",
  "|",
  "`",
  "<",
  ">",
  "*",
  "_",
  "[",
  "]",
  "@",
  "#",
  " ",
  "🔑",
  "𝒜",
  "a",
  "b",
  "-",
  "/",
];

/** A hostile name: one of the above, one made of dangerous characters, or any string at all. */
export const hostileName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_NAMES),
  fc.string({ unit: fc.constantFrom(...UNITS), minLength: 1, maxLength: 12 }),
  fc.string({ unit: "binary", minLength: 1, maxLength: 12 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 6 }),
);

/**
 * What must never reach a reader raw: controls, format characters (bidi overrides, zero-width), private use,
 * unassigned code points, lone surrogates, line and paragraph separators, and every space but U+0020.
 */
export const RAW_DANGER = /[\p{C}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;
