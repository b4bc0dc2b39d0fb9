/**
 * How every output writes an object (sdk/words): a name reads as itself when plain, otherwise quoted with escapes;
 * either way it is one line with nothing raw that could forge, repaint or hide one, and the reader recovers the exact
 * name (`readName`). A kind is said in one vocabulary; a uid stands beside a name only to tell two of a noun apart.
 * Fast-check, fixed seeds, hostile names (../hostile-names).
 */
import fc from "fast-check";
import MarkdownIt from "markdown-it";
import { mdText } from "../../commands/markdown";
import {
  IDENTITY_NOUNS,
  Names,
  capabilityText,
  identityKind,
  lineText,
  nameText,
  nounOf,
  quoted,
  readName,
  resourceText,
} from "../../sdk/words";
import { HOSTILE_NAMES, RAW_DANGER, hostileName } from "../hostile-names";

const ORG = "a".repeat(40);
const LINE_BREAK = /[\n\r\u0085\u2028\u2029]/;

describe("a name as every output writes it", () => {
  it("round-trips, is one line, and holds nothing raw that could forge or hide one (fast-check)", () => {
    fc.assert(
      fc.property(hostileName, (name) => {
        const shown = nameText(name);
        expect(readName(shown)).toBe(name);
        expect(shown).not.toMatch(RAW_DANGER);
        expect(shown).not.toMatch(LINE_BREAK);
        if (shown === name) {
          // Plain: one word of letters, digits and joiners, nothing a line's own syntax uses.
          expect(name).toMatch(/^[A-Za-z0-9][A-Za-z0-9._@+/-]*$/);
        } else {
          // Quoted: a JSON string, whose quotes no character of the name can end early.
          expect(JSON.parse(shown)).toBe(name);
          expect(shown).toMatch(/^"(?:[^"\\]|\\.)*"$/);
        }
        expect(JSON.parse(quoted(name))).toBe(name);
      }),
      { seed: 4242, numRuns: 2000 },
    );
  });

  it("quotes every hand-made hostile name but the plain words, and leaves a plain one as it is", () => {
    const plain = HOSTILE_NAMES.filter((name) => nameText(name) === name);
    expect(plain).toEqual(["constructor", "toString"]);
    for (const name of HOSTILE_NAMES) if (!plain.includes(name)) expect(nameText(name)).toBe(quoted(name));
    expect(nameText("ci-robot")).toBe("ci-robot");
    expect(nameText("alice+ci@example.com")).toBe("alice+ci@example.com");
    expect(nameText("robot\u202egnp.exe")).toBe('"robot\\u202egnp.exe"');
    expect(nameText("ci\nx")).toBe('"ci\\nx"');
    expect(nameText('say "hi"')).toBe('"say \\"hi\\""');
    expect(nameText("𝒜")).toBe('"𝒜"');
  });

  it("writes a well-formed capability as it is and any other string as a name (fast-check)", () => {
    expect(capabilityText("CAP_IAM_ROLES_CREATE")).toBe("CAP_IAM_ROLES_CREATE");
    expect(capabilityText("CAP_A CAP_B")).toBe('"CAP_A CAP_B"');
    fc.assert(
      fc.property(hostileName, (capability) => {
        const shown = capabilityText(capability);
        expect(shown).toBe(nameText(capability));
        expect(shown).not.toMatch(RAW_DANGER);
        expect(readName(shown)).toBe(capability);
      }),
      { seed: 4243, numRuns: 500 },
    );
  });

  it("keeps our own words with data in them one line, nothing raw (fast-check)", () => {
    fc.assert(
      fc.property(hostileName, (text) => {
        const line = lineText(`partial: ${text}`);
        expect(line).not.toMatch(RAW_DANGER);
        expect(line).not.toMatch(LINE_BREAK);
        if (!RAW_DANGER.test(text)) expect(line).toBe(`partial: ${text}`);
      }),
      { seed: 4243, numRuns: 1000 },
    );
  });

  it("renders in a Markdown cell as the text writes it (fast-check)", () => {
    const md = new MarkdownIt({ html: true });
    fc.assert(
      fc.property(hostileName, (name) => {
        const tokens = md.parse(`| a |\n| --- |\n| ${mdText(nameText(name))} |\n`, {});
        const cells = tokens.filter((t) => t.type === "inline").map((t) => t.children ?? []);
        expect(cells).toHaveLength(2);
        expect(cells[1]!.every((c) => c.type === "text")).toBe(true);
        expect(cells[1]!.map((c) => c.content).join("")).toBe(nameText(name));
      }),
      { seed: 4244, numRuns: 1000 },
    );
  });

  it("writes a program's resource by its type and its name, always quoted", () => {
    expect(resourceText("RoleBinding", "ci-deployer")).toBe('RoleBinding "ci-deployer"');
    expect(resourceText("platform:iam:Group", "a\nb")).toBe('platform:iam:Group "a\\nb"');
  });
});

describe("kinds", () => {
  it("says each kind in the spec's nouns, by where the uid is", () => {
    const under = `${ORG}/0000000000000001`;
    expect([nounOf("group", ORG), nounOf("group", under)]).toEqual(["organization", "folder"]);
    expect([nounOf("identity", ORG), nounOf("identity", under)]).toEqual(["user", "workload identity"]);
    expect([nounOf("role", ORG), nounOf("role", under)]).toEqual(["built-in role", "role"]);
  });

  it("maps the review's data values for an identity's kind to the same nouns", () => {
    for (const uid of [ORG, `${ORG}/0000000000000001`])
      expect(IDENTITY_NOUNS[identityKind(uid)]).toBe(nounOf("identity", uid));
  });
});

describe("Names", () => {
  const folder = (i: number) => `${ORG}/${i.toString(16).padStart(16, "0")}`;

  it("writes the uid only beside a name another object of the same noun holds, or for no name (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(hostileName, { nil: undefined }), { minLength: 1, maxLength: 8 }),
        (given) => {
          const names = new Names();
          given.forEach((name, i) => names.add("group", folder(i), name));
          given.forEach((name, i) => {
            const uid = folder(i);
            const written = names.named("group", uid);
            expect(written).not.toMatch(RAW_DANGER);
            expect(written).not.toMatch(LINE_BREAK);
            if (name === undefined || name === "") return expect(written).toBe(`folder ${uid}`);
            const twins = given.filter((n) => n === name).length;
            expect(written).toBe(
              twins > 1 ? `folder ${nameText(name)} (${uid})` : `folder ${nameText(name)}`,
            );
            expect(names.rawName("group", uid)).toBe(twins > 1 ? `${name} (${uid})` : name);
          });
        },
      ),
      { seed: 4245, numRuns: 500 },
    );
  });

  it("keeps the first name it learns unless set over, and a name is data, never a key of ours", () => {
    const names = new Names()
      .add("role", `${ORG}/r`, "__proto__")
      .add("role", `${ORG}/r`, "later")
      .add("identity", ORG, "constructor");
    expect(names.role(`${ORG}/r`)).toBe('role "__proto__"');
    expect(names.identity(ORG)).toBe("user constructor");
    names.set("role", `${ORG}/r`, "deployer");
    expect(names.role(`${ORG}/r`)).toBe("role deployer");
    expect(names.known("group", "toString")).toBe(false);
  });

  it("tells a custom role from the built-in of the same name by its noun, not its uid", () => {
    const names = new Names().add("role", ORG, "viewer").add("role", `${ORG}/r`, "viewer");
    expect(names.role(ORG)).toBe("built-in role viewer");
    expect(names.role(`${ORG}/r`)).toBe("role viewer");
  });
});
