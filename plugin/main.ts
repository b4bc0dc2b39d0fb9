/**
 * `pulumi-resource-platform`: the native provider plugin's entry point. The engine starts it with its own
 * address as the last argument; the plugin listens on a free loopback port, prints the port on stdout (the
 * plugin protocol's one line) and serves until the engine stops it.
 *
 * Nothing is logged: a credential must never reach a log, and the engine shows stderr to users. Set
 * PULUMI_PLATFORM_DEBUG=1 to get the stack of a failure that stops the plugin.
 */
import { startPluginServer } from "./server";

async function main(): Promise<void> {
  const plugin = await startPluginServer();
  process.stdout.write(`${plugin.port}\n`);
  const stop = () => {
    void plugin.close().finally(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err: unknown) => {
  const detail = process.env["PULUMI_PLATFORM_DEBUG"] && err instanceof Error ? err.stack : String(err);
  process.stderr.write(`pulumi-resource-platform: could not start: ${detail}\n`);
  process.exit(1);
});
