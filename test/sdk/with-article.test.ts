/** A noun's indefinite article (sdk/words withArticle): chosen by how the noun is said, not how it is spelt. */
import { withArticle } from "../../sdk/words";

test("chooses the article by how the noun is said", () => {
  const said = [
    "an identity",
    "an account association",
    "a group",
    "a user",
    "a uid",
    "an unknown member",
    "an owner",
  ];
  for (const words of said) expect(withArticle(words.replace(/^an? /, ""))).toBe(words);
});
