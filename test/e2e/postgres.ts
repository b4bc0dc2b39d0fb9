/**
 * A throwaway PostgreSQL server for the engine's DIY `postgres://` backend: Debian's `postgresql` package
 * (scripts/test.sh installs it when missing), a cluster made with initdb in a temporary directory, trusting local
 * connections, on a port of its own, started and stopped by the test (or bench) that needs it. Needs root: the
 * server runs as the `postgres` user the package creates.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Postgres {
  /** The backend URL, e.g. postgres://postgres@127.0.0.1:54123/pulumi?sslmode=disable. */
  url: string;
  /** Stops the server and removes its directory. */
  stop: () => void;
}

/** Starts a server with one database, `pulumi`; `stop()` removes it. */
export function startPostgres(): Postgres {
  const bin = execFileSync(
    "bash",
    ["-c", "ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1"],
    {
      encoding: "utf8",
    },
  ).trim();
  if (bin === "") throw new Error("no PostgreSQL server: apt-get install -y postgresql");
  const dir = mkdtempSync(join(tmpdir(), "platform-pg-"));
  const port = String(54_000 + (process.pid % 1000));
  const asPostgres = (args: string[]) =>
    execFileSync("runuser", ["-u", "postgres", "--", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  execFileSync("chown", ["postgres", dir]);
  asPostgres([join(bin, "initdb"), "-D", join(dir, "data"), "-A", "trust", "-U", "postgres"]);
  asPostgres([
    join(bin, "pg_ctl"),
    "-D",
    join(dir, "data"),
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    "-l",
    join(dir, "log"),
    "-w",
    "start",
  ]);
  asPostgres([join(bin, "createdb"), "-h", "127.0.0.1", "-p", port, "pulumi"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/pulumi?sslmode=disable`,
    stop: () => {
      asPostgres([join(bin, "pg_ctl"), "-D", join(dir, "data"), "-m", "fast", "-w", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
