/**
 * Text as HTML, for every page and section the access tools write: a name from the API is data, so it is escaped
 * where it is written (text or attribute value), never trusted as markup.
 */
const ESCAPES = new Map([
  ["&", "&amp;"],
  ["<", "&lt;"],
  [">", "&gt;"],
  ['"', "&quot;"],
  ["'", "&#39;"],
]);

/** Text as HTML text or an attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES.get(c)!);
}
