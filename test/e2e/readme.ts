/**
 * The README's code blocks, read by the tests that run or check them, so documentation and code cannot drift.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface CodeBlock {
  /** The fence's language, e.g. "bash", "ts". */
  language: string;
  /** The `## ` heading the block sits under. */
  section: string;
  text: string;
}

/** Every fenced block of a Markdown file, with the section it is in. */
export function codeBlocks(file: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let section = "";
  let open: { language: string; lines: string[] } | undefined;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (open) {
      if (line.startsWith("```")) {
        blocks.push({ language: open.language, section, text: open.lines.join("\n") });
        open = undefined;
      } else {
        open.lines.push(line);
      }
    } else if (line.startsWith("```")) {
      open = { language: line.slice(3).trim(), lines: [] };
    } else if (line.startsWith("## ")) {
      section = line.slice(3).trim();
    }
  }
  return blocks;
}

export const SHELL_LANGUAGES = new Set(["bash", "sh", "shell"]);

/** The commands of a shell block: comments and blank lines dropped, `&&` chains split. */
export function shellCommands(block: CodeBlock): string[] {
  return block.text
    .split("\n")
    .map((line) => line.replace(/(^|\s)#.*$/, "").trim())
    .filter((line) => line !== "")
    .flatMap((line) => line.split(/\s+&&\s+/).map((c) => c.trim()));
}

export const readmePath = (repoRoot: string): string => path.join(repoRoot, "README.md");

/** A page of the user docs, by its path in the repository (e.g. "docs/adopting.md"). */
export const docPath = (repoRoot: string, page: string): string => path.join(repoRoot, page);

/**
 * Every page a person reads for the project, whose commands are tested: the README, the contributor guide, and every
 * Markdown page under docs/ (the user guide and the registry's generated pages).
 */
export function documentationPages(repoRoot: string): string[] {
  return [
    readmePath(repoRoot),
    path.join(repoRoot, "CONTRIBUTING.md"),
    ...fs
      .readdirSync(path.join(repoRoot, "docs"))
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => path.join(repoRoot, "docs", name)),
  ];
}
