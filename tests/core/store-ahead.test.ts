import { afterAll, beforeAll, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { HeldStore } from "../helpers/held-store.js";
import { openStream, statusText } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { until } from "../helpers/until.js";
import { hubTaskStream, text } from "../helpers/ws-agent.js";

/**
 * A store whose reads see a commit before the commit's answer comes back (the SQLite store: its writer is
 * another thread, its reads run on the router's). A stream that catches up from the log in that window is
 * ahead of the fan-out: it must join the live turn without spinning and get each event exactly once.
 */
const store = new HeldStore({ visibleFirst: true });
let router: RunningRouter;
beforeAll(async () => {
  router = await testRouter({ store, eliza: false });
});
afterAll(async () => {
  await router?.close();
});

test("a resubscribe that reads the log past the fan-out gets every event once, in order", async () => {
  const { agent, stream: first } = await hubTaskStream(router.url, "early", "early-1");
  agent.notify("task.status", { task_id: "early-1", status: { state: "working", message: text("1") } });
  await first.next();

  store.hold();
  for (const n of ["2", "3"]) agent.notify("task.status", { task_id: "early-1", status: { state: "working", message: text(n) } });
  // Stored, not yet answered: the log has 2 and 3 (and the agent's updates wait for the store).
  await until(async () => (await store.readEvents("early-1", 0, 10)).length >= 3);
  const late = await openStream(router.url, "tasks/resubscribe", { id: "early-1" }, { headers: { "last-event-id": "0" } });
  const fromLog = [await late.next(), await late.next(), await late.next()].map((e) => statusText(e!));
  expect(fromLog).toEqual(["1", "2", "3"]);

  store.release();
  agent.notify("task.status", { task_id: "early-1", status: { state: "completed", message: text("done") }, final: true });
  const rest = (await late.all()).map(statusText);
  expect(rest).toEqual(["done"]);
  expect((await first.all()).map(statusText)).toEqual(["2", "3", "done"]);
  await agent.close();
});
