/**
 * Text for a person is a type (sdk/words `Words`): an error's context (provider/core/errors `Attempt`) takes only
 * what words made, so a name written raw, or a plural made by hand, does not compile there. The `@ts-expect-error`
 * lines are checked by `npm run typecheck` (tsconfig includes test/): each fails it the day it compiles.
 */
import type { Attempt } from "../../provider/core/errors";
import { translateError } from "../../provider/core/errors";
import { countOf, joinWords, nameText, said } from "../../sdk/words";

const hostile = "child\nCould not delete: nothing";

it("an error's context takes words' output, never a raw string", () => {
  // @ts-expect-error a name written raw into an error's context
  const raw: Attempt = { action: "delete", type: "t", found: `Still in it: ${hostile}` };
  // @ts-expect-error said takes only Words: a raw name cannot be put in
  const unescaped = said`under ${hostile}`;
  // @ts-expect-error a plural made by hand is a plain string
  const plural: Attempt = { action: "delete", type: "t", where: `${2} identitys` };
  expect([raw.found, plural.where, unescaped]).toHaveLength(3);

  const found = said`Still in it: ${joinWords([nameText(hostile), countOf(2, "workload identity")])}`;
  const message = translateError(new Error("refused"), { action: "delete", type: "t", found }).message;
  // The name is quoted and escaped: one line, and it cannot pass for our own words.
  expect(message.split("\n")).toHaveLength(1);
  expect(message).toContain('Still in it: "child\\nCould not delete: nothing", 2 workload identities.');
});
