/** What the page keeps in localStorage: the API key, the chosen agent, and each chat's transcript. */
const KEY = "a2a-router.chat";

export function loadState() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "null");
    if (saved && typeof saved.chatId === "string" && Array.isArray(saved.messages)) return saved;
  } catch {
    // A damaged entry starts a new chat rather than breaking the page.
  }
  return { apiKey: "", agent: "", chatId: newId(), messages: [] };
}

/**
 * A random UUID (v4). `crypto.randomUUID` exists only in secure contexts (https, localhost), and the page is
 * also opened over plain http on a LAN address (a phone); `crypto.getRandomValues` exists everywhere.
 */
export function newId() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function saveState(state) {
  localStorage.setItem(KEY, JSON.stringify(state));
}
