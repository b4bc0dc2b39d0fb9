/**
 * How a test file starts what its tests share (an emulator, a harness): before the file's (or describe block's)
 * tests, stopped after them, prepared again before each test. What it returns reads the started object; read it
 * inside hooks and tests, not at collection time, when nothing has started yet.
 */
export function useStarted<T>(
  what: string,
  start: () => Promise<T>,
  stop: (started: T) => Promise<void>,
  beforeEachTest?: (started: T) => void | Promise<void>,
): () => T {
  let started: T | undefined;
  const current = (): T => {
    if (started === undefined) throw new Error(`${what}: read it inside a hook or a test`);
    return started;
  };
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    if (started !== undefined) await stop(started);
    started = undefined;
  });
  if (beforeEachTest !== undefined) beforeEach(() => beforeEachTest(current()));
  return current;
}
