/**
 * Images and files sent through the Responses API (`input_image`, `input_file`) reach the agent as A2A file
 * parts, or are refused naming the field where the agent's card does not take them (issue 30, item 4).
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import OpenAI, { BadRequestError } from "openai";
import type { RunningRouter } from "../../router/index.js";
import { filesAgent } from "../helpers/agents.js";
import { testRouter } from "../helpers/router.js";

let router: RunningRouter;
let client: OpenAI;

const files = filesAgent();

beforeAll(async () => {
  router = await testRouter({ eliza: false, hostedAgents: [files.agent] });
  client = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(() => router.close());

const png = Buffer.from("not really a png").toString("base64");

describe("input_image and input_file", () => {
  test("reach the agent as A2A file parts: data: URLs as bytes, URLs as uri, the text beside them", async () => {
    const response = await client.responses.create({
      model: "files",
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "what is this?" },
            { type: "input_image", image_url: `data:image/png;base64,${png}`, detail: "auto" },
            { type: "input_image", image_url: "https://example.com/cat.jpg", detail: "auto" },
            { type: "input_file", filename: "notes.png", file_data: `data:image/png;base64,${png}` },
          ],
        },
      ],
    });
    expect(response.output_text).toBe("text,file,file,file");
    expect(files.received()!.parts).toEqual([
      { kind: "text", text: "what is this?" },
      { kind: "file", file: { mimeType: "image/png", bytes: png } },
      { kind: "file", file: { mimeType: "image/jpeg", uri: "https://example.com/cat.jpg" } },
      { kind: "file", file: { name: "notes.png", mimeType: "image/png", bytes: png } },
    ]);
  });

  test("a file the agent's card does not take is refused naming the part", async () => {
    const err = await client.responses
      .create({
        model: "files",
        input: [{ role: "user", content: [{ type: "input_file", filename: "a.pdf", file_data: `data:application/pdf;base64,${png}` }] }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).param).toBe("input[0].content[0].file_data");
    expect((err as BadRequestError).message).toMatch(/agent "files" does not accept application\/pdf files/);
  });

  test("a file_id (OpenAI's Files API), a bad URL, an unknown part: 400 naming the field", async () => {
    const cases: Array<[unknown, string]> = [
      [{ type: "input_image", file_id: "file-123", detail: "auto" }, "input[0].content[0].file_id"],
      [{ type: "input_file", file_id: "file-123" }, "input[0].content[0].file_id"],
      [{ type: "input_image", image_url: "ftp://example.com/x.png", detail: "auto" }, "input[0].content[0].image_url"],
      [{ type: "input_file", filename: "x" }, "input[0].content[0].file_data"],
      [{ type: "input_audio", data: "x" }, "input[0].content[0]"],
    ];
    for (const [part, param] of cases) {
      const err = await client.responses.create({ model: "files", input: [{ role: "user", content: [part] }] } as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).param).toBe(param);
    }
  });
});
