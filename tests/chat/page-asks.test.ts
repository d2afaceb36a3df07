/**
 * The chat page in a real browser when the agent asks back (CONTRACT 14): Eliza's flight booking lacks the
 * origin, the page shows the question as the answer with a "needs your input" status, and the next message
 * finishes the booking on the same task. Screenshots at desktop width and at 375 px (see SHOTS).
 */
import { afterAll, afterEach, beforeAll, expect, test } from "@jest/globals";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { ROOT } from "../helpers/spawn-router.js";
import { startChatRig, type ChatRig } from "./helpers.js";

/** The page's DOM, inside page.evaluate callbacks (this file is compiled without the DOM lib). */
declare const document: { documentElement: { scrollWidth: number; clientWidth: number } };

let rig: ChatRig;
let browser: Browser;
/** Screenshots: docs/ with UPDATE_SCREENSHOTS=1 (they are the docs'), else a temp dir. */
const SHOTS = process.env.UPDATE_SCREENSHOTS === "1" ? join(ROOT, "docs") : tmpdir();
const pageErrors: string[] = [];
const lastAssistant = ".msg.assistant:last-child";

beforeAll(async () => {
  rig = await startChatRig();
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"],
  });
});

afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await rig.close();
});

async function openPage(width: number, height = 800): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.on("pageerror", (err) => pageErrors.push(err.message));
  await page.goto(`${rig.router.url}/chat`);
  await page.waitForSelector("body[data-ready=true]");
  await page.selectOption("#agent", "eliza");
  return page;
}

async function say(page: Page, text: string): Promise<void> {
  await page.fill("#message", text);
  await page.keyboard.press("Enter");
}

const SIZES: Array<[string, number, string]> = [
  ["desktop", 1100, "chat-asks-desktop.png"],
  ["375 px", 375, "chat-asks-375.png"],
];

test.each(SIZES)("%s: the question with a needs-your-input status, then the answer books the flight on the same task", async (_, width, shot) => {
  const page = await openPage(width);
  await say(page, "book a flight to Paris tomorrow");
  await page.waitForSelector(`${lastAssistant}[data-state=input-required]`);
  await expect(page.textContent(`${lastAssistant} .state`)).resolves.toBe("needs your input");
  await expect(page.textContent(`${lastAssistant} .answer`)).resolves.toContain("what is the departure city or airport code?");
  await expect(page.getAttribute("#message", "placeholder")).resolves.toBe("Answer the agent’s question");
  await expect(page.isEnabled("#send")).resolves.toBe(true);
  const asked = await page.getAttribute(lastAssistant, "data-task");
  expect(asked).toBeTruthy();
  if (width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
  await page.screenshot({ path: join(SHOTS, shot), fullPage: width === 375, animations: "disabled" });

  await say(page, "from London");
  await page.waitForSelector(`${lastAssistant}[data-state=completed]`);
  const answer = await page.textContent(`${lastAssistant} .answer`);
  expect(answer).toContain("Booked 1 seat from London to Paris");
  await expect(page.getAttribute(lastAssistant, "data-task")).resolves.toBe(asked);
  await expect(page.textContent(`${lastAssistant} .state`)).resolves.toBe("");
  await expect(page.getAttribute("#message", "placeholder")).resolves.not.toBe("Answer the agent’s question");
  // The earlier question keeps its status in the transcript.
  await expect(page.locator(".msg.assistant").first().locator(".state").textContent()).resolves.toBe("needs your input");
  await page.context().close();
});
