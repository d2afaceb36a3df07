/** What the page keeps in localStorage: the API key, the chosen agent, and each chat's transcript. */
const KEY = "a2a-router.chat";

export function loadState() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "null");
    if (saved && typeof saved.chatId === "string" && Array.isArray(saved.messages)) return saved;
  } catch {
    // A damaged entry starts a new chat rather than breaking the page.
  }
  return { apiKey: "", agent: "", chatId: crypto.randomUUID(), messages: [] };
}

export function saveState(state) {
  localStorage.setItem(KEY, JSON.stringify(state));
}
