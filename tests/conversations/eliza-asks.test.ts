import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { type Client, ClientFactory, ClientFactoryOptions, RestTransportFactory } from "@a2a-js/sdk/client";
import { createElizaAgent } from "../../agents/eliza/index.js";
import { findDate } from "../../agents/eliza/models/local-parameters.js";
import type { TextModel } from "../../agents/eliza/models/text-model.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { openStream, rpc, type Json } from "../helpers/rpc.js";
import { collect, sdkMessage, sdkText } from "../interop/helpers.js";

/**
 * CONTRACT 14: the hosted Eliza agent (offline local model) asks for an action's missing parameters instead
 * of failing, and the answer books the flight, over JSON-RPC v0.1, v0.3, v1.0 and the REST binding.
 */

let router: RunningRouter;
const PATH = "/agents/eliza";
const ASK = "book a flight to Paris tomorrow";
const QUESTION = "I need one more detail for BOOK_FLIGHT: what is the departure city or airport code?";

beforeAll(async () => {
  router = await testRouter({ env: {} });
});

afterAll(async () => {
  await router.close();
});

/** Tomorrow's UTC date, as the local model reads "tomorrow". */
function tomorrow(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString().slice(0, 10);
}

function expectBooked(text: string): void {
  expect(text).toContain(`✅ Booked 1 seat from London to Paris on ${tomorrow()}. Booking BK-`);
}

const textOf = (message: Json | undefined) => (message?.parts ?? []).map((p: Json) => p.text ?? "").join("");

test("v0.1: tasks/sendSubscribe asks for the origin only; tasks/send with the same id books it", async () => {
  const id = randomUUID();
  const events = await (
    await openStream(router.url, "tasks/sendSubscribe", { id, message: { role: "user", parts: [{ type: "text", text: ASK }] } }, { path: PATH })
  ).all();
  const final = events.at(-1)!.data.result;
  expect(final).toMatchObject({ id, status: { state: "input-required" }, final: true, metadata: { missingParameters: ["origin"] } });
  expect(textOf(final.status.message)).toContain(QUESTION);
  const booked = await rpc(router.url, "tasks/send", { id, message: { role: "user", parts: [{ type: "text", text: "from London" }] } }, { path: PATH });
  expect(booked.result).toMatchObject({ id, status: { state: "completed" } });
  expectBooked(textOf(booked.result.status.message));
  const got = await rpc(router.url, "tasks/get", { id, historyLength: 10 }, { path: PATH });
  expect(got.result.history.map((m: Json) => m.role)).toEqual(["user", "agent", "user", "agent"]);
  // The question's metadata no longer stands once it was answered.
  expect(got.result.metadata.missingParameters).toEqual([]);
});

test("the local extractor resolves relative dates against today's UTC date", () => {
  const friday = new Date("2026-11-27T23:30:00Z");
  expect(findDate("today", friday)).toBe("2026-11-27");
  expect(findDate("fly tomorrow", friday)).toBe("2026-11-28");
  expect(findDate("the day after tomorrow", friday)).toBe("2026-11-29");
  expect(findDate("in 5 days", friday)).toBe("2026-12-02");
  expect(findDate("on Monday", friday)).toBe("2026-11-30");
  expect(findDate("next Monday", friday)).toBe("2026-11-30");
  expect(findDate("Friday", friday)).toBe("2026-12-04");
  expect(findDate("on 2025-03-15", friday)).toBe("2025-03-15");
  expect(findDate("soon", friday)).toBeUndefined();
});

test("v0.3: message/stream asks; message/send with the taskId books it", async () => {
  const message = { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: ASK }] };
  const events = await (await openStream(router.url, "message/stream", { message }, { path: PATH })).all();
  const final = events.at(-1)!.data.result;
  expect(final).toMatchObject({ kind: "status-update", status: { state: "input-required" }, final: true, metadata: { missingParameters: ["origin"] } });
  expect(textOf(final.status.message)).toContain(QUESTION);
  const answer = { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: "from London" }], taskId: final.taskId };
  const booked = await rpc(router.url, "message/send", { message: answer }, { path: PATH });
  expect(booked.result).toMatchObject({ id: final.taskId, status: { state: "completed" } });
  expectBooked(textOf(booked.result.status.message));
});

describe.each([
  ["v1.0 JSON-RPC", () => new ClientFactory().createFromUrl(`${router.url}${PATH}/`)],
  [
    "v1.0 REST",
    () =>
      new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new RestTransportFactory()], preferredTransports: ["HTTP+JSON"] }),
      ).createFromUrl(`${router.url}${PATH}/`),
  ],
] as Array<[string, () => Promise<Client>]>)("%s with @a2a-js/sdk", (_, make) => {
  const send = (text: string, extra: Parameters<typeof sdkMessage>[1] = {}) => ({
    tenant: "",
    message: sdkMessage(text, extra),
    configuration: undefined,
    metadata: undefined,
  });

  async function ask(client: Client): Promise<{ taskId: string; contextId: string }> {
    const events: StreamResponse[] = await collect(client.sendMessageStream(send(ASK)));
    const last = events.at(-1)!;
    expect(last.payload?.$case).toBe("statusUpdate");
    if (last.payload?.$case !== "statusUpdate") throw new Error("no status update");
    const update = last.payload.value;
    expect(update.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(update.metadata).toMatchObject({ missingParameters: ["origin"] });
    expect(sdkText(update.status?.message?.parts)).toContain(QUESTION);
    return { taskId: update.taskId, contextId: update.contextId };
  }

  test("asks for the origin; the answer by taskId books it", async () => {
    const client = await make();
    const { taskId } = await ask(client);
    const booked = (await client.sendMessage(send("from London", { taskId }))) as Task;
    expect(booked.id).toBe(taskId);
    expect(booked.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expectBooked(sdkText(booked.status?.message?.parts));
  });

  test("asks for the origin; the answer by contextId books it", async () => {
    const client = await make();
    const { taskId, contextId } = await ask(client);
    const booked = (await client.sendMessage(send("from London", { contextId }))) as Task;
    expect(booked.id).toBe(taskId);
    expect(booked.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expectBooked(sdkText(booked.status?.message?.parts));
  });
});

test("with a real model (scripted here), the answer is read by the model with parametersTemplate and merged", async () => {
  const prompts: string[] = [];
  const model: TextModel = {
    provider: "openai",
    async generate(_type, params) {
      prompts.push(params.prompt);
      const out = params.prompt.includes("asked the user for the missing parameters")
        ? "<response><params><BOOK_FLIGHT><origin>LHR</origin></BOOK_FLIGHT></params></response>"
        : "<response><thought>t</thought><actions>REPLY,BOOK_FLIGHT</actions><text>Sure.</text><params><BOOK_FLIGHT><destination>CDG</destination><departureDate>2026-12-01</departureDate></BOOK_FLIGHT></params></response>";
      params.onStreamChunk?.(out);
      return out;
    },
  };
  const eliza = await createElizaAgent({ store: new MemoryStore(), env: {}, character: { name: "Modelled", plugins: ["example"] }, model });
  const own = await testRouter({ eliza: false, hostedAgents: [eliza] });
  try {
    const message = (text: string, taskId?: string) => ({
      message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }], ...(taskId && { taskId }) },
    });
    const events = await (await openStream(own.url, "message/stream", message("fly me to Paris on Dec 1st"), { path: PATH })).all();
    const asked = events.at(-1)!.data.result;
    expect(asked).toMatchObject({ status: { state: "input-required" }, metadata: { missingParameters: ["origin"] } });
    const booked = await rpc(own.url, "message/send", message("from Heathrow", asked.taskId), { path: PATH });
    expect(booked.result.status.state).toBe("completed");
    expect(textOf(booked.result.status.message)).toContain("✅ Booked 1 seat from LHR to CDG on 2026-12-01.");
    const read = prompts.find((p) => p.includes("asked the user for the missing parameters"))!;
    expect(read).toContain("- origin (string): Departure city or airport code");
    expect(read).toContain("from Heathrow");
    expect(read).not.toContain("- destination");
  } finally {
    await own.close();
    await eliza.close();
  }
});
