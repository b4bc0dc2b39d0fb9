/**
 * The package version, read from the nearest package.json named pulumi-platform. Looked up at run time because the
 * compiled file sits one directory deeper (dist/sdk) than the source (sdk), so a fixed relative import would break.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

function findVersion(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === "pulumi-platform" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // no package.json here; keep walking up
    }
    if (dirname(dir) === dir) return "0.0.0";
  }
}

/** Version of this package, as in package.json. */
export const SDK_VERSION: string = findVersion(__dirname);
