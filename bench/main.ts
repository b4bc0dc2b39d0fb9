/**
 * How a bench runs when its file is the one node runs (`npx ts-node bench/<name>.ts`), and not when another bench
 * imports it: a failure prints its stack and exits 1.
 */
export function runWhenMain(module: NodeModule, bench: string, main: () => Promise<void>): void {
  if (require.main !== module) return;
  main().catch((error: unknown) => {
    process.stderr.write(`${bench} bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
