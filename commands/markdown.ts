/**
 * GitHub-flavoured Markdown, the one writer of it for every output (the access review, the access plan's pull-request
 * comment, a CI job summary): text escaped so that a name from the API stays text, headings and tables. A name is
 * data: it cannot break a table (a pipe), forge a line or a heading (a line break), open a code span (a backtick), a
 * link or emphasis, inject HTML or mention anyone.
 *
 *   mdTable(["identity", "role"], [[mdText(names.identity(uid)), mdText(names.role(role))]])
 *
 * Cells and headings take inline Markdown: write data into them through `mdText`, never as it is; an object as the
 * text names it (../sdk/words), so the comment reads as the preview does.
 */
import { lineText } from "../sdk/words";

/**
 * Text as inline Markdown that renders as the text itself, made one line: every character that could forge or hide
 * a line escaped as text escapes it (../sdk/words `lineText`: Markdown has no escape for a line break inside a table
 * row or a heading), then every ASCII punctuation character backslash-escaped (CommonMark lets any be, and GFM
 * tables read `\|` as a pipe inside a cell).
 */
export function mdText(text: string): string {
  return lineText(text).replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);
}

/** Inline Markdown in bold. */
export function mdBold(inline: string): string {
  return inline === "" ? "" : `**${inline}**`;
}

/** A heading (`level` 1 to 6) of inline Markdown, followed by a blank line. */
export function mdHeading(level: 1 | 2 | 3 | 4 | 5 | 6, inline: string): string {
  return `${"#".repeat(level)} ${oneLine(inline)}\n\n`;
}

/** A paragraph of inline Markdown, followed by a blank line. */
export function mdParagraph(inline: string): string {
  return `${oneLine(inline)}\n\n`;
}

/** A bulleted list, one item of inline Markdown each, followed by a blank line. */
export function mdList(items: readonly string[]): string {
  return items.length === 0 ? "" : `${items.map((i) => `- ${oneLine(i)}`).join("\n")}\n\n`;
}

/**
 * A GFM table: a header row, the delimiter row, then one row per entry, each cell inline Markdown, followed by a blank
 * line. A row with fewer cells is padded; an empty cell is written as one space so no row can collapse.
 */
export function mdTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) =>
    `| ${header.map((_, i) => oneLine(cells[i] ?? "") || " ").join(" | ")} |`;
  return `${[line(header), `|${header.map(() => " --- ").join("|")}|`, ...rows.map(line)].join("\n")}\n\n`;
}

/** Inline Markdown is one line; a line break here is a bug of the caller, so it fails loudly. */
function oneLine(inline: string): string {
  if (/[\r\n]/.test(inline)) throw new Error(`inline Markdown holds a line break: ${JSON.stringify(inline)}`);
  return inline;
}
