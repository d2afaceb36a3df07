/**
 * `npm start` serves the chat faces from the built package: the page's static files from their source folder,
 * the compiled reply reader as /chat/reply.js; OPTIONS on the faces' paths is not broken.
 */
import { afterAll, beforeAll, expect, test } from "@jest/globals";
import { spawnRouter, type RouterProcess } from "../helpers/spawn-router.js";

let router: RouterProcess;

beforeAll(async () => {
  router = await spawnRouter(["--store", "memory"]);
});

afterAll(async () => {
  await router.kill();
});

test("the binary serves /chat, its modules and the reply reader", async () => {
  const page = await fetch(`${router.url}/chat`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  const html = await page.text();
  for (const asset of html.match(/\/chat\/[a-z-]+\.(js|css)/g) ?? []) {
    const res = await fetch(`${router.url}${asset}`);
    expect([asset, res.status]).toEqual([asset, 200]);
  }
  const reader = await fetch(`${router.url}/chat/reply.js`);
  expect(reader.headers.get("content-type")).toMatch(/javascript/);
  const source = await reader.text();
  expect(source).toContain("export function createReplyReader");
  expect(source).not.toMatch(/^import /m);
  for (const module of ["chat.js", "render.js", "sse.js", "store.js"]) {
    expect((await fetch(`${router.url}/chat/${module}`)).headers.get("content-type")).toMatch(/javascript/);
  }
});

test("OPTIONS on the faces' paths answers without a server error", async () => {
  for (const path of ["/v1/chat/completions", "/v1/models", "/api/chat"]) {
    const res = await fetch(`${router.url}${path}`, { method: "OPTIONS" });
    expect(res.status).toBeLessThan(500);
  }
});
