/**
 * Resolves once `done()` holds, asking every 10 ms until `timeoutMs`: for state that another thread or
 * process changes on its own clock, which nothing here can await.
 */
export async function until(done: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
