/**
 * The chat page in a real browser (headless Chromium driven by playwright-core): a streamed answer, one
 * status line per task replaced in place, Stop, reload mid-turn resumes. Screenshots: see SHOTS.
 * Needs /usr/bin/chromium (the Debian package; .ci/run installs it when missing).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { connectAgent } from "../../agents/sdk/index.js";
import { startRouter } from "../../router/index.js";
import { memoryLogger } from "../sdk/helpers.js";
import { ROOT } from "../helpers/spawn-router.js";
import { startChatRig, type ChatRig } from "./helpers.js";

/** The page's DOM, inside page.evaluate callbacks (this file is compiled without the DOM lib). */
declare const document: {
  querySelector(s: string): { textContent: string | null } | null;
  documentElement: { scrollWidth: number; clientWidth: number };
  activeElement: { id: string; tagName: string; textContent: string | null } | null;
};
declare const localStorage: { getItem(key: string): string | null };
declare const window: { scrollY: number; innerHeight: number; isSecureContext: boolean; scrollTo(x: number, y: number): void } & Record<string, unknown>;
/** An element's laid-out box, inside page.evaluate callbacks. */
type Boxed = { getBoundingClientRect(): { top: number; bottom: number } };

let rig: ChatRig;
let browser: Browser;
/** Screenshots: docs/ with UPDATE_SCREENSHOTS=1 (they are the README's), else a temp dir (a test run changes no tracked file). */
const SHOTS = process.env.UPDATE_SCREENSHOTS === "1" ? join(ROOT, "docs") : tmpdir();

/** Uncaught errors in the page's scripts: every test ends with none. */
const pageErrors: string[] = [];

beforeAll(async () => {
  rig = await startChatRig();
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    // chat.test is 127.0.0.1 under another name: an http origin that is not a secure context (a LAN address).
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--host-resolver-rules=MAP chat.test 127.0.0.1"],
  });
});

afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await rig.close();
});

async function openPage(width: number, height = 800, url = rig.router.url): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.on("pageerror", (err) => pageErrors.push(err.message));
  await page.goto(`${url}/chat`);
  await page.waitForSelector("body[data-ready=true]");
  return page;
}

async function say(page: Page, agent: string, text: string): Promise<void> {
  await page.selectOption("#agent", agent);
  await page.fill("#message", text);
  await page.keyboard.press("Enter");
}

const lastAssistant = ".msg.assistant:last-child";

describe("the chat page", () => {
  test("streams an answer; the agent picker shows each agent's card", async () => {
    const page = await openPage(1100);
    await page.selectOption("#agent", "stepper");
    await expect(page.textContent("#agent-description")).resolves.toBe("A test agent that waits for its test");
    await expect(page.textContent("#agent-skills")).resolves.toContain("steps: answers in steps");
    await say(page, "echo", "hello page");
    await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
    await expect(page.textContent(`${lastAssistant} .answer`)).resolves.toBe("hello page");
    await expect(page.inputValue("#message")).resolves.toBe("");
    await page.context().close();
  });

  test("one status line per task, replaced in place; reload mid-turn resumes; screenshots", async () => {
    rig.stepped.reset();
    const page = await openPage(1100);
    await say(page, "eliza", "play some jazz");
    await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
    // Markdown: two paragraphs, the bold as <strong>.
    await expect(page.textContent(`${lastAssistant} .answer`)).resolves.toBe("Sure! Let me play that.Now playing: Some Jazz");
    await expect(page.textContent(`${lastAssistant} .answer p:last-child strong`)).resolves.toBe("Some Jazz");

    await say(page, "stepper", "world");
    await rig.stepped.reached("status-1");
    const status = page.locator(`${lastAssistant} .status`);
    await expect(status.textContent()).resolves.toBeDefined();
    await page.waitForFunction(() => document.querySelector(".msg.assistant:last-child .status")?.textContent === "Looking things up");
    const handle = await status.elementHandle();

    rig.stepped.release("step-1");
    await page.waitForFunction(() => document.querySelector(".msg.assistant:last-child .status")?.textContent === "Writing the answer");
    // The same element, replaced in place: never two status lines.
    expect(await page.locator(`${lastAssistant} .status`).count()).toBe(1);
    expect(await handle!.evaluate((el) => el.isConnected)).toBe(true);
    await page.screenshot({ path: join(SHOTS, "chat-desktop.png"), animations: "disabled" });

    // Reload mid-turn: the page reattaches and replays the turn from its start.
    await page.reload();
    await page.waitForSelector("body[data-ready=true]");
    await page.waitForFunction(() => document.querySelector(".msg.assistant:last-child .status")?.textContent === "Writing the answer");
    expect(await page.locator(".msg.assistant .status").count()).toBe(2);
    rig.stepped.release("step-2");
    await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
    await expect(page.textContent(`${lastAssistant} .answer`)).resolves.toBe("Hello world!");
    await expect(page.textContent("#raw-log")).resolves.toContain('"kind":"status"');
    // The earlier turn survived the reload too.
    await expect(page.locator(".msg.assistant").first().locator(".answer").textContent()).resolves.toContain("Now playing");
    await page.context().close();
  });

  test("artifacts: data as pretty JSON, files as links", async () => {
    const page = await openPage(1100);
    await say(page, "artist", "draw");
    await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
    await expect(page.textContent(`${lastAssistant} .answer`)).resolves.toBe("Here is your chart.");
    await expect(page.textContent(`${lastAssistant} .artifact pre`)).resolves.toBe(JSON.stringify({ bars: [1, 2], title: "sales" }, null, 2));
    await expect(page.getAttribute(`${lastAssistant} .artifact a`, "href")).resolves.toBe("https://example.com/report.pdf");
    await page.context().close();
  });

  test("a turn that ended while the page was away is read once on return", async () => {
    rig.stepped.reset();
    const page = await openPage(1100);
    await say(page, "stepper", "later");
    await rig.stepped.reached("status-1");
    await page.waitForFunction(() => document.querySelector(".msg.assistant:last-child")?.textContent?.includes("Looking things up") ?? false);
    const chatId = await page.evaluate(() => JSON.parse(localStorage.getItem("a2a-router.chat") ?? "{}").chatId as string);
    await page.goto("about:blank");
    rig.stepped.release("step-1");
    rig.stepped.release("step-2");
    // Wait for the turn's end through the chat's own resume endpoint: it answers 204 once nothing runs.
    const resumed = await fetch(`${rig.router.url}/api/chat/${chatId}/stream`);
    if (resumed.status === 200) await resumed.text();
    await page.goto(`${rig.router.url}/chat`);
    await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
    await expect(page.textContent(`${lastAssistant} .answer`)).resolves.toBe("Hello later!");
    await page.context().close();
  });

  test("Stop cancels the running turn; New chat starts empty", async () => {
    rig.stepped.reset();
    const page = await openPage(1100);
    await say(page, "stepper", "hang");
    await rig.stepped.reached("hanging");
    await page.waitForFunction(() => document.querySelector(".msg.assistant:last-child .status")?.textContent === "Working forever");
    await page.click("#stop");
    await page.waitForSelector(`${lastAssistant}[data-state=canceled]`);
    await expect(page.isDisabled("#stop")).resolves.toBe(true);
    await expect(page.isEnabled("#send")).resolves.toBe(true);
    await page.click("#new-chat");
    expect(await page.locator(".msg").count()).toBe(0);
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("message");
    await page.context().close();
  });

  test("at 375 px wide: usable, nothing wider than the screen; screenshot", async () => {
    rig.stepped.reset();
    rig.stepped.release("step-1");
    const page = await openPage(375, 740);
    await say(page, "shouter", "hello");
    await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
    await say(page, "stepper", "phone");
    await page.waitForFunction(() => document.querySelector(".msg.assistant:last-child .status")?.textContent === "Writing the answer");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    for (const id of ["#agent", "#message", "#send", "#stop", "#new-chat"]) {
      const box = await page.locator(id).boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    }
    await page.screenshot({ path: join(SHOTS, "chat-375.png"), fullPage: true, animations: "disabled" });
    rig.stepped.release("step-2");
    await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
    await page.context().close();
  });

  test("with API keys: the page asks for one, keeps it, sends it as Bearer; keyboard order follows the page", async () => {
    const router = await startRouter({ host: "127.0.0.1", port: 0, store: "memory", eliza: false, config: { apiKeys: ["k-page"] } });
    try {
      const page = await openPage(1100, 800, router.url);
      await expect(page.textContent("#error")).resolves.toContain("needs an API key");
      await page.click("#settings summary");
      await page.fill("#api-key", "k-page");
      await page.press("#api-key", "Enter");
      await page.waitForFunction(() => document.querySelector("#error")?.textContent === "");
      await say(page, "echo", "with a key");
      await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
      await expect(page.textContent(`${lastAssistant} .answer`)).resolves.toBe("with a key");
      await expect(page.evaluate(() => JSON.parse(localStorage.getItem("a2a-router.chat") ?? "{}").apiKey)).resolves.toBe("k-page");

      await page.reload();
      await page.waitForSelector("body[data-ready=true]");
      await page.evaluate(() => (document.activeElement as unknown as { blur(): void }).blur());
      const order: string[] = [];
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press("Tab");
        order.push(await page.evaluate(() => document.activeElement?.id || `${document.activeElement?.tagName}:${document.activeElement?.textContent}`));
      }
      expect(order).toEqual(["agent", "new-chat", "SUMMARY:API key", "agent-card-toggle", "message", "send"]);
      await page.context().close();
    } finally {
      await router.close();
    }
  });
});

describe("the chat page as people use it", () => {
  test("on a plain-http origin that is not localhost (not a secure context): agents load, a turn is answered", async () => {
    // Bound beyond loopback (as on a LAN), so a page on another host name is the router's own origin.
    const router = await startRouter({ host: "0.0.0.0", port: 0, store: "memory", eliza: false, config: { apiKeys: ["k-lan"] } });
    try {
      const page = await openPage(375, 740, `http://chat.test:${router.port}`);
      await expect(page.evaluate(() => window.isSecureContext)).resolves.toBe(false);
      await expect(page.textContent("#error")).resolves.toContain("needs an API key");
      await page.click("#settings summary");
      await page.fill("#api-key", "wrong");
      await page.press("#api-key", "Enter");
      // A key that is there but refused says so, not "needs a key".
      await page.waitForFunction(() => document.querySelector("#error")?.textContent?.includes("was refused") ?? false);
      await page.click("#settings summary");
      await page.fill("#api-key", "k-lan");
      await page.press("#api-key", "Enter");
      await page.waitForFunction(() => document.querySelector("#error")?.textContent === "");
      await say(page, "echo", "from a phone");
      await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
      await expect(page.textContent(`${lastAssistant} .answer`)).resolves.toBe("from a phone");
      await page.context().close();
    } finally {
      await router.close();
    }
  });

  test("markdown renders; HTML in an answer is shown as text and never runs", async () => {
    const page = await openPage(1100);
    const evil =
      'A **bold** move, `code` and [a link](https://example.com/x). <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script> [bad](javascript:window.pwned=3)';
    await say(page, "echo", evil);
    await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
    await expect(page.textContent(`${lastAssistant} .answer strong`)).resolves.toBe("bold");
    await expect(page.textContent(`${lastAssistant} .answer code`)).resolves.toBe("code");
    await expect(page.getAttribute(`${lastAssistant} .answer a`, "href")).resolves.toBe("https://example.com/x");
    expect(await page.locator(`${lastAssistant} .answer a`).count()).toBe(1); // javascript: is no link
    expect(await page.locator(`${lastAssistant} .answer img, ${lastAssistant} .answer script`).count()).toBe(0);
    await expect(page.textContent(`${lastAssistant} .answer`)).resolves.toContain('<img src=x onerror="window.pwned=1">');
    await page.click(`${lastAssistant} .answer`);
    await expect(page.evaluate(() => window.pwned)).resolves.toBeUndefined();

    // What the old hand-written renderer could not do: a table and a nested list. Links other than http(s) and
    // mailto (javascript:, data:, an autolink, an image) stay inert; the good ones open apart from the page.
    const rich = [
      "| tool | verdict |",
      "|------|:-------:|",
      "| marked | **parses** |",
      "| DOMPurify | sanitizes |",
      "",
      "- fruit",
      "  - apple",
      "    1. green",
      "- [docs](https://example.com/docs) and [mail](mailto:a@example.com)",
      "",
      "[run me](javascript:window.pwned=4) [JS](JaVaScRiPt:window.pwned=5) <javascript:window.pwned=6> [d](data:text/html,<b>x</b>)",
      '![pixel](javascript:window.pwned=7) <div onclick="window.pwned=8">div text</div>',
    ].join("\n");
    await say(page, "echo", rich);
    await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
    const answer = `${lastAssistant} .answer`;
    expect(await page.locator(`${answer} table th`).allTextContents()).toEqual(["tool", "verdict"]);
    expect(await page.locator(`${answer} table td`).allTextContents()).toEqual(["marked", "parses", "DOMPurify", "sanitizes"]);
    await expect(page.textContent(`${answer} td strong`)).resolves.toBe("parses");
    await expect(page.getAttribute(`${answer} th:last-child`, "align")).resolves.toBe("center");
    await expect(page.textContent(`${answer} ul > li > ul > li > ol > li`)).resolves.toBe("green");
    const links = await page
      .locator(`${answer} a`)
      .evaluateAll((anchors) => anchors.map((a) => ({ href: a.getAttribute("href"), target: a.getAttribute("target"), rel: a.getAttribute("rel") })));
    expect(links).toEqual([
      { href: "https://example.com/docs", target: "_blank", rel: "noopener noreferrer" },
      { href: "mailto:a@example.com", target: "_blank", rel: "noopener noreferrer" },
    ]);
    expect(await page.locator(`${answer} img, ${answer} div, ${answer} [onclick]`).count()).toBe(0);
    const text = await page.textContent(answer);
    for (const inert of ["run me", "JS", "javascript:window.pwned=6", "pixel", '<div onclick="window.pwned=8">div text</div>']) expect(text).toContain(inert);
    await page.click(answer);
    await expect(page.evaluate(() => window.pwned)).resolves.toBeUndefined();
    await page.locator(lastAssistant).screenshot({ path: join(SHOTS, "chat-markdown.png"), animations: "disabled" });
    await page.context().close();
  });

  test("at 375 px the newest answer stays in view after many turns, unless the reader scrolled up; the card starts collapsed", async () => {
    const page = await openPage(375, 640);
    await expect(page.evaluate(() => (document.querySelector("#agent-card") as unknown as { open: boolean }).open)).resolves.toBe(false);
    for (let i = 1; i <= 6; i++) {
      await say(page, "echo", `turn ${i}: ${"a long line of words that wraps ".repeat(6)}\nand a second line`);
      await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
      await page.waitForFunction(() => {
        const last = document.querySelector(".msg.assistant:last-child") as unknown as Boxed;
        const composer = document.querySelector("#composer") as unknown as Boxed;
        const r = last.getBoundingClientRect();
        return r.bottom <= window.innerHeight && r.bottom <= composer.getBoundingClientRect().top + 1 && r.bottom > 0;
      });
    }
    await expect(page.evaluate(() => window.scrollY)).resolves.toBeGreaterThan(0);

    // Scrolled up to read: a streaming turn leaves the view where the reader put it.
    rig.stepped.reset();
    await say(page, "stepper", "up");
    await rig.stepped.reached("status-1");
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForFunction(() => window.scrollY === 0);
    rig.stepped.release("step-1");
    rig.stepped.release("step-2");
    await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
    await expect(page.evaluate(() => window.scrollY)).resolves.toBe(0);
    await page.context().close();
  });

  test("an agent that disconnects is marked offline in the picker and on its card", async () => {
    const leaver = connectAgent({ url: `${rig.router.url.replace(/^http/, "ws")}/hub`, name: "leaver", logger: memoryLogger() }).skill(
      { name: "main", description: "says bye" },
      async function* () {
        yield "bye";
      },
    );
    await leaver.ready;
    try {
      const page = await openPage(1100);
      await page.waitForSelector('#agent option[value="leaver"][data-online="true"]', { state: "attached" });
      await page.selectOption("#agent", "leaver");
      await expect(page.textContent("#agent-online")).resolves.toBe("");
      await leaver.close();
      // The page reads /agents every few seconds (and on focus): no reload.
      await page.waitForSelector('#agent option[value="leaver"][data-online="false"]', { state: "attached", timeout: 15_000 });
      await expect(page.textContent('#agent option[value="leaver"]')).resolves.toBe("leaver (offline)");
      await expect(page.textContent("#agent-online")).resolves.toBe("offline");
      await expect(page.inputValue("#agent")).resolves.toBe("leaver");
      await page.context().close();
    } finally {
      await leaver.close(); // again when the test got that far: closing twice is harmless
    }
  });
});
