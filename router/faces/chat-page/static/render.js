/**
 * The transcript in the DOM. Each message is one <li>; an assistant message has ONE status line, its
 * answer, and its artifacts, all updated in place (never appended as new lines) as the turn goes on.
 */

import { appendParts, WAITING_LABELS } from "/chat/reply.js";
import { renderAnswer } from "./answer.js";

/** The answer text each answer element shows (re-rendered only when it changed). */
const rendered = new WeakMap();

/** Creates the <li> of a message and fills it. */
export function messageElement(msg) {
  const li = document.createElement("li");
  li.className = `msg ${msg.role}`;
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = msg.role === "user" ? "You" : msg.agent || "Agent";
  li.append(who);
  if (msg.role === "user") {
    li.append(document.createTextNode(msg.text));
    return li;
  }
  const status = document.createElement("p");
  status.className = "status";
  status.setAttribute("role", "status");
  const answer = document.createElement("div");
  answer.className = "answer";
  answer.setAttribute("aria-live", "polite");
  const artifacts = document.createElement("div");
  artifacts.className = "artifacts";
  const state = document.createElement("p");
  state.className = "state";
  li.append(status, answer, artifacts, state);
  updateMessage(li, msg);
  return li;
}

/** Brings an assistant message's <li> up to date. */
export function updateMessage(li, msg) {
  if (!li) return;
  const running = msg.state === "running";
  li.dataset.state = msg.state;
  if (msg.taskId) li.dataset.task = msg.taskId;
  const answer = li.querySelector(".answer");
  // Screen readers hear the answer once it is whole, not every delta.
  answer.setAttribute("aria-busy", String(running));
  // Markdown, sanitized; HTML in an answer shows as text (answer.js).
  if (rendered.get(answer) !== msg.text) {
    renderAnswer(answer, msg.text);
    rendered.set(answer, msg.text);
  }
  const status = li.querySelector(".status");
  status.dataset.state = msg.statusState ?? "";
  status.textContent = running ? (msg.status ?? "") : "";
  li.querySelector(".state").textContent = running ? "" : stateLine(msg);
  renderArtifacts(li.querySelector(".artifacts"), msg);
}

/** Whether the message's task waits for the user: their next message answers it (the same task goes on). */
export function waitsForUser(msg) {
  return msg?.role === "assistant" && WAITING_LABELS[msg.state] !== undefined;
}

function stateLine(msg) {
  if (msg.error) return `${msg.state}: ${msg.error}`;
  if (waitsForUser(msg)) return WAITING_LABELS[msg.state];
  return msg.state === "completed" ? "" : msg.state;
}

/** The artifacts that are not the answer (an answer the agent rewrote shows its artifacts apart too). */
function renderArtifacts(box, msg) {
  box.replaceChildren();
  for (const [id, artifact] of Object.entries(msg.artifacts ?? {})) {
    if (artifact.answer && !(msg.state !== "running" && !msg.text.includes(textOf(artifact.parts)))) continue;
    const el = document.createElement("section");
    el.className = "artifact";
    el.setAttribute("aria-label", `Artifact ${artifact.name ?? id}`);
    const h = document.createElement("h3");
    h.textContent = artifact.name ?? id;
    el.append(h);
    for (const part of artifact.parts) el.append(partElement(part));
    box.append(el);
  }
}

function textOf(parts) {
  return parts.map((p) => (p.kind === "text" ? p.text : "")).join("");
}

/** Text as text, data as pretty JSON, files as links (a data: URL for inline bytes). */
function partElement(part) {
  if (part.kind === "data") {
    const pre = document.createElement("pre");
    pre.textContent = JSON.stringify(part.data, null, 2);
    return pre;
  }
  if (part.kind === "file") {
    const a = document.createElement("a");
    const file = part.file ?? {};
    a.textContent = file.name ?? file.uri ?? "file";
    a.href = file.uri ?? (file.bytes ? `data:${file.mimeType ?? "application/octet-stream"};base64,${file.bytes}` : "#");
    a.target = "_blank";
    a.rel = "noopener";
    if (!file.uri) a.download = file.name ?? "file";
    return a;
  }
  const pre = document.createElement("pre");
  pre.textContent = part.text ?? "";
  return pre;
}

/** Applies the reply reader's changes to a message (the same rules as every other face). */
export function applyChanges(msg, changes, event) {
  for (const c of changes) {
    switch (c.type) {
      case "answer":
        msg.text += c.delta;
        break;
      case "answer-reset":
        msg.text = c.text;
        break;
      case "status":
        // A snapshot repeats the answer shown so far: the status line shows only what it adds.
        msg.status = c.textKind === "snapshot" && msg.text !== "" && c.text.startsWith(msg.text) ? c.text.slice(msg.text.length).trim() || c.text : c.text;
        msg.statusState = event.kind === "status" ? event.status.state : msg.statusState;
        break;
      case "artifact": {
        msg.artifacts ??= {};
        const before = msg.artifacts[c.artifactId];
        msg.artifacts[c.artifactId] = {
          name: c.name ?? before?.name,
          answer: c.answer,
          parts: c.append && before ? appendParts(before.parts, c.parts) : c.parts,
        };
        break;
      }
      case "end":
        msg.state = c.state;
        // A turn that ended without an answer (failed, rejected, canceled): the reader names the error.
        if (c.error !== undefined) msg.error = c.error;
        break;
    }
  }
}
