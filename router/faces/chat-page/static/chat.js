/**
 * The chat page: picks an agent, sends messages over `POST /api/chat?events=raw`, and renders each turn by
 * feeding the A2A events (transient `data-a2a-event` parts) to the router's own reply reader. Stop is
 * `POST /api/chat/{chatId}/cancel`; a reload reattaches through `GET /api/chat/{chatId}/stream`.
 */
import { createReplyReader } from "/chat/reply.js";
import { applyChanges, messageElement, updateMessage, waitsForUser } from "./render.js";
import { readDataEvents } from "./sse.js";
import { loadState, newId, saveState } from "./store.js";

/** How often the agent list (and each agent's online state) is read again; also on focus. */
const AGENTS_POLL_MS = 5000;
/** Phone width: the agent card starts collapsed there (chat.css uses the same break). */
const NARROW = "(max-width: 480px)";
/** How close to the bottom (px) still counts as "reading the newest message". */
const NEAR_BOTTOM_PX = 80;

const $ = (id) => document.getElementById(id);
const els = {
  agent: $("agent"),
  newChat: $("new-chat"),
  keyForm: $("key-form"),
  apiKey: $("api-key"),
  settings: $("settings"),
  card: $("agent-card"),
  agentOnline: $("agent-online"),
  agentName: $("agent-name"),
  agentDescription: $("agent-description"),
  agentSkills: $("agent-skills"),
  transcript: $("transcript"),
  error: $("error"),
  composer: $("composer"),
  message: $("message"),
  send: $("send"),
  stop: $("stop"),
  rawLog: $("raw-log"),
};

const state = loadState();
let agents = [];
/** The fetch of the turn being read; aborting it only stops reading (the turn goes on). */
let reading;

function headers(extra = {}) {
  return { ...extra, ...(state.apiKey ? { authorization: `Bearer ${state.apiKey}` } : {}) };
}

function showError(text, source = "agents") {
  els.error.textContent = text;
  els.error.dataset.source = text ? source : "";
}

async function errorText(res) {
  try {
    const body = await res.json();
    return body?.error?.message ?? (typeof body?.error === "string" ? body.error : `HTTP ${res.status}`);
  } catch {
    return `HTTP ${res.status}`;
  }
}

/** The messages the router's 401 means: no key at all, or one it refused. */
function keyError() {
  return state.apiKey
    ? "The saved API key was refused (wrong or revoked?): open “API key” and check it."
    : "This router needs an API key: open “API key” and save one.";
}

function raw(line) {
  els.rawLog.textContent += `${line}\n`;
  els.rawLog.scrollTop = els.rawLog.scrollHeight;
}

// ---- agents ----

async function loadAgents() {
  let res;
  try {
    res = await fetch("/agents", { headers: headers() });
  } catch {
    showError("The router cannot be reached; retrying.");
    return;
  }
  if (!res.ok) {
    showError(res.status === 401 ? keyError() : await errorText(res));
    return;
  }
  if (els.error.dataset.source === "agents") showError("");
  const listing = await res.json();
  agents = listing.agents;
  // Rebuilt only when something changed, so a poll never disturbs an open picker.
  const options = agents.map((a) => [a.id, a.online ? a.name : `${a.name} (offline)`, String(a.online)]);
  if (JSON.stringify(options) !== els.agent.dataset.options) {
    els.agent.replaceChildren(
      ...options.map(([id, label, online]) => {
        const o = document.createElement("option");
        o.value = id;
        o.textContent = label;
        o.dataset.online = online;
        return o;
      }),
    );
    els.agent.dataset.options = JSON.stringify(options);
  }
  // A first visit starts on the router's default agent (the one a request that names none reaches).
  if (!agents.some((a) => a.id === state.agent)) state.agent = listing.defaultAgent ?? agents[0]?.id ?? "";
  els.agent.value = state.agent;
  showCard();
}
function showCard() {
  const agent = agents.find((a) => a.id === state.agent);
  const card = agent?.card ?? {};
  els.agentName.textContent = agent ? (card.name ?? agent.name) : "No agent";
  els.agentOnline.textContent = agent && !agent.online ? "offline" : "";
  els.agentDescription.textContent = card.description ?? "";
  els.agentSkills.replaceChildren(
    ...(card.skills ?? []).map((s) => {
      const li = document.createElement("li");
      li.textContent = s.description ? `${s.name}: ${s.description}` : s.name;
      return li;
    }),
  );
}

// ---- transcript ----

function renderAll() {
  els.transcript.replaceChildren(...state.messages.map(messageElement));
}

/** Whether the reader is at the newest message; scrolling up to read earlier ones turns following off. */
let following = true;

function nearBottom() {
  const doc = document.documentElement;
  return window.scrollY + window.innerHeight >= doc.scrollHeight - NEAR_BOTTOM_PX;
}

/** Where `follow` last left the page; the transcript only grows below it. */
let followedTo = 0;

/** Keeps the newest message in view, unless the reader scrolled up. */
function follow() {
  // A scroll event is dispatched at the next frame: an update that lands between the reader's scroll and its event
  // would still see `following` and pull the reader back down. Above where we left the page, the reader moved.
  if (window.scrollY < followedTo - NEAR_BOTTOM_PX) following = false;
  if (!following) return;
  window.scrollTo({ top: document.documentElement.scrollHeight, behavior: "instant" });
  followedTo = window.scrollY;
}

function lastElement() {
  return els.transcript.lastElementChild;
}

function running() {
  const last = state.messages[state.messages.length - 1];
  return last?.role === "assistant" && last.state === "running" ? last : undefined;
}

const PLACEHOLDER = els.message.placeholder;

function setBusy(busy) {
  els.send.disabled = busy;
  els.stop.disabled = !busy;
  // The agent asked a question: the next message answers it, in the same task (the router continues it).
  els.message.placeholder = !busy && waitsForUser(state.messages[state.messages.length - 1]) ? "Answer the agent’s question" : PLACEHOLDER;
}

/** The streaming message's next paint, if one is due (an animation frame id). */
let paint;

/**
 * Paints a streaming message at most once per animation frame, however fast its deltas arrive: each paint
 * parses and sanitizes the whole answer so far, so a paint per delta would make a long answer cost quadratic work.
 */
function paintSoon(li, msg) {
  if (paint !== undefined) return;
  paint = requestAnimationFrame(() => {
    paint = undefined;
    updateMessage(li, msg);
    follow();
  });
}

/** Paints now (a turn's end): what the page shows once a turn is over is never a frame late. */
function paintNow(li, msg) {
  if (paint !== undefined) cancelAnimationFrame(paint);
  paint = undefined;
  updateMessage(li, msg);
  follow();
}

/** Reads one turn's UI stream into `msg` (a fresh reader: a resumed stream replays the turn from its start). */
async function readTurn(res, msg) {
  const reader = createReplyReader();
  const li = lastElement();
  for await (const chunk of readDataEvents(res)) {
    if (chunk === "[DONE]") break;
    if (chunk.type === "start") {
      msg.taskId = chunk.messageMetadata?.taskId;
      saveState(state);
    } else if (chunk.type === "data-a2a-event") {
      raw(JSON.stringify(chunk.data));
      applyChanges(msg, reader.feed(chunk.data), chunk.data);
      paintSoon(li, msg);
      saveState(state);
    } else if (chunk.type === "error" && !msg.error) {
      msg.error = chunk.errorText;
    }
  }
}

async function followTurn(res, msg) {
  setBusy(true);
  try {
    await readTurn(res, msg);
  } catch (err) {
    if (err.name !== "AbortError") showError(`The stream broke off: ${err.message}. Reload to reattach.`);
    return;
  } finally {
    reading = undefined;
  }
  if (msg.state === "running") await settle(msg);
  setBusy(false);
  paintNow(lastElement(), msg);
  saveState(state);
}

/** A turn whose stream ended without its end (it finished while we were away): read the task once. */
async function settle(msg) {
  if (!msg.taskId) {
    msg.state = "unknown";
    return;
  }
  const res = await fetch("/rpc", {
    method: "POST",
    headers: headers({ "content-type": "application/json" }),
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: msg.taskId } }),
  });
  const task = (await res.json()).result;
  if (!task) {
    msg.state = "unknown";
    return;
  }
  const reader = createReplyReader();
  msg.text = "";
  for (const artifact of task.artifacts ?? []) applyChanges(msg, reader.feed({ kind: "artifact", artifact }), {});
  const final = { kind: "status", status: task.status, final: true };
  applyChanges(msg, reader.feed(final), final);
}

async function send(text) {
  showError("");
  state.messages.push({ role: "user", text });
  const msg = { role: "assistant", agent: state.agent, text: "", status: "", state: "running", artifacts: {} };
  state.messages.push(msg);
  saveState(state);
  els.transcript.append(messageElement(state.messages[state.messages.length - 2]), messageElement(msg));
  // Sending is reading the newest message again.
  following = true;
  followedTo = 0;
  follow();
  setBusy(true);
  let res;
  try {
    reading = new AbortController();
    res = await fetch("/api/chat?events=raw", {
      method: "POST",
      signal: reading.signal,
      headers: headers({ "content-type": "application/json" }),
      body: JSON.stringify({
        id: state.chatId,
        agent: state.agent || undefined,
        messages: [{ id: newId(), role: "user", parts: [{ type: "text", text }] }],
        trigger: "submit-message",
      }),
    });
  } catch (err) {
    res = undefined;
    msg.error = err.message;
  }
  if (!res?.ok) {
    msg.state = "failed";
    msg.error ??= await errorText(res);
    if (res?.status === 401) {
      msg.error = keyError();
      showError(keyError(), "send");
    }
    updateMessage(lastElement(), msg);
    follow();
    saveState(state);
    setBusy(false);
    return;
  }
  await followTurn(res, msg);
}

/** After a reload: reattach to the chat's running turn, replayed from its start. */
async function resume() {
  const msg = running();
  if (!msg) return;
  reading = new AbortController();
  const res = await fetch(`/api/chat/${encodeURIComponent(state.chatId)}/stream?events=raw`, { headers: headers(), signal: reading.signal });
  if (res.status === 204) {
    await settle(msg);
    updateMessage(lastElement(), msg);
    saveState(state);
    return;
  }
  if (!res.ok) {
    showError(await errorText(res));
    return;
  }
  Object.assign(msg, { text: "", status: "", artifacts: {}, error: undefined });
  raw("— reattached to the running turn —");
  await followTurn(res, msg);
}

async function stop() {
  els.stop.disabled = true;
  const res = await fetch(`/api/chat/${encodeURIComponent(state.chatId)}/cancel`, { method: "POST", headers: headers() });
  if (!res.ok) showError(await errorText(res));
  // The turn's stream delivers the canceled end.
}

function newChat() {
  reading?.abort();
  state.chatId = newId();
  state.messages = [];
  saveState(state);
  els.rawLog.textContent = "";
  renderAll();
  setBusy(false);
  showError("");
  els.message.focus();
}

// ---- wiring ----

els.composer.addEventListener("submit", (e) => {
  e.preventDefault();
  const text = els.message.value.trim();
  if (!text || running()) return;
  els.message.value = "";
  void send(text);
});
els.message.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    els.composer.requestSubmit();
  }
});
els.stop.addEventListener("click", () => void stop());
els.newChat.addEventListener("click", newChat);
els.agent.addEventListener("change", () => {
  state.agent = els.agent.value;
  saveState(state);
  showCard();
});
els.keyForm.addEventListener("submit", (e) => {
  e.preventDefault();
  state.apiKey = els.apiKey.value.trim();
  saveState(state);
  showError("");
  els.settings.open = false;
  void loadAgents();
});

window.addEventListener("scroll", () => (following = nearBottom()), { passive: true });
// A taller window (a phone turned upright) scrolls the page up without the reader: not a move of theirs.
window.addEventListener("resize", () => (followedTo = Math.min(followedTo, window.scrollY)), { passive: true });
window.addEventListener("focus", () => void loadAgents());
document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && void loadAgents());
setInterval(() => document.visibilityState === "visible" && void loadAgents(), AGENTS_POLL_MS);

// The card takes a third of a phone screen: there it starts collapsed (its summary still names the agent).
if (window.matchMedia(NARROW).matches) els.card.open = false;
els.apiKey.value = state.apiKey;
renderAll();
follow();
setBusy(Boolean(running()));
await loadAgents();
document.body.dataset.ready = "true";
await resume();
