/**
 * Agents' answers as Markdown (GitHub-flavoured: tables, nested and task lists, strikethrough; a single
 * newline breaks the line, as chat agents write). marked turns the text into HTML and DOMPurify sanitizes
 * that HTML into DOM nodes. HTML an agent writes is never HTML here, twice over: marked does not look for HTML
 * at all (its html and tag tokenizers are off, so `<script>` or `<img onerror>` is text, escaped like any text),
 * and DOMPurify keeps only the elements Markdown makes and links to http(s) or mailto. Links open in a new tab
 * without an opener or a referrer. Images become links: an answer never makes the browser fetch anything.
 */

import { Marked } from "/chat/vendor/marked.esm.js";
import DOMPurify from "/chat/vendor/purify.es.mjs";

const SAFE_URL = /^(?:https?|mailto):/i;

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function anchor(href, title, html) {
  return `<a href="${escapeHtml(href)}"${title ? ` title="${escapeHtml(title)}"` : ""}>${html}</a>`;
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  // A tokenizer that finds nothing leaves the source to the next one: HTML is read as plain text.
  tokenizer: { html: () => undefined, tag: () => undefined },
  hooks: {
    // marked ends each block with a newline; as text nodes between blocks they would be part of the answer's
    // text (copied, read out). Text and code never hold a bare `>` or `<` (marked escapes them), so this only
    // ever meets the gap between two tags.
    postprocess: (html) => html.replace(/>\n+</g, "><").trim(),
  },
  renderer: {
    // Unreachable while the tokenizers above are off; should a marked release find HTML anyway, it stays text.
    html: ({ text }) => escapeHtml(text),
    // Headings in an answer sit under the page's own: h4 and below.
    heading({ tokens, depth }) {
      const level = Math.min(6, depth + 3);
      return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
    },
    // Any other scheme (javascript:, data:, a relative path) shows as the link's text.
    link({ href, title, tokens }) {
      const html = this.parser.parseInline(tokens);
      return SAFE_URL.test(href) ? anchor(href, title, html) : html;
    },
    image({ href, title, text }) {
      return SAFE_URL.test(href) ? anchor(href, title, escapeHtml(text || href)) : escapeHtml(text);
    },
  },
});

/** What an answer may contain: the elements marked makes from Markdown (headings shifted to h4-h6). */
const PURIFY = {
  ALLOWED_TAGS: "p br hr h4 h5 h6 strong em del code pre blockquote ul ol li a table thead tbody tr th td input".split(" "),
  ALLOWED_ATTR: ["href", "title", "align", "start", "type", "checked", "disabled"],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOWED_URI_REGEXP: SAFE_URL,
  // DOMPurify tests every other attribute's value against the URI pattern too: these hold no URL.
  ADD_URI_SAFE_ATTR: ["align", "start", "type", "checked", "disabled"],
  RETURN_DOM_FRAGMENT: true,
};

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  } else if (node.tagName === "INPUT") {
    // A task list's box shows its state; it is not a control.
    node.setAttribute("type", "checkbox");
    node.setAttribute("disabled", "");
  }
});

/** Renders `text` (Markdown) into `target`, replacing its children. */
export function renderAnswer(target, text) {
  target.replaceChildren(DOMPurify.sanitize(marked.parse(text), PURIFY));
}
