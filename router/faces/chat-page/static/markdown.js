/**
 * A small Markdown renderer for agents' answers that is safe by construction: it builds DOM nodes with
 * createElement and text nodes only (no innerHTML anywhere), so HTML in an answer (`<script>`, `<img onerror>`)
 * shows as text and never runs. Links keep http(s) and mailto targets only. It covers what chat agents write:
 * paragraphs, line breaks, headings, bullet and numbered lists, quotes, fenced and inline code, bold, italics,
 * strikethrough and links. Anything else shows as the text it is.
 */

const SAFE_LINK = /^(https?:|mailto:)/i;

/** Renders `text` into `target` (its children are replaced). */
export function renderMarkdown(target, text) {
  target.replaceChildren(...blocks(text));
}

function el(tag, children = []) {
  const node = document.createElement(tag);
  node.append(...children);
  return node;
}

/** The block structure: fenced code, headings, lists, quotes, paragraphs (blank lines separate them). */
function blocks(text) {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) body.push(lines[i++]);
      i++; // the closing fence (or the end of a still-streaming answer)
      out.push(el("pre", [el("code", [body.join("\n")])]));
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      // Headings in an answer sit under the page's own: h4 and below.
      out.push(el(`h${Math.min(6, heading[1].length + 3)}`, inline(heading[2])));
      i++;
      continue;
    }
    const item = listItem(line);
    if (item) {
      const list = el(item.ordered ? "ol" : "ul");
      while (i < lines.length) {
        const next = listItem(lines[i]);
        if (next && next.ordered === item.ordered) {
          list.append(el("li", inline(next.text)));
        } else if (lines[i].trim() !== "" && /^\s+/.test(lines[i]) && list.lastChild) {
          list.lastChild.append(el("br"), ...inline(lines[i].trim())); // a continued item
        } else break;
        i++;
      }
      out.push(list);
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) quoted.push(lines[i++].replace(/^\s*>\s?/, ""));
      out.push(el("blockquote", blocks(quoted.join("\n"))));
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() !== "" && !startsBlock(lines[i])) para.push(lines[i++]);
    if (para.length === 0) para.push(lines[i++]);
    const children = [];
    para.forEach((l, n) => {
      if (n > 0) children.push(el("br"));
      children.push(...inline(l));
    });
    out.push(el("p", children));
  }
  return out;
}

function listItem(line) {
  const m = /^\s{0,3}([-*+]|\d{1,9}[.)])\s+(.*)$/.exec(line);
  return m ? { ordered: /\d/.test(m[1]), text: m[2] } : undefined;
}

function startsBlock(line) {
  return /^\s*(```|~~~)/.test(line) || /^#{1,6}\s/.test(line) || listItem(line) !== undefined || /^\s*>/.test(line);
}

/** Inline marks, left to right: code, links, bold, italics, strikethrough; the rest is text. */
const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\[([^\]\n]+)\]\(([^)\s]+)\)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__|\*(?=[^\s*])([\s\S]*?[^\s*])\*|(?<![A-Za-z0-9])_(?=[^\s_])([\s\S]*?[^\s_])_(?![A-Za-z0-9])|~~(?=\S)([\s\S]*?\S)~~/;

function inline(text) {
  const out = [];
  let rest = text;
  while (rest !== "") {
    const m = INLINE.exec(rest);
    if (!m) {
      out.push(document.createTextNode(rest));
      break;
    }
    if (m.index > 0) out.push(document.createTextNode(rest.slice(0, m.index)));
    out.push(mark(m));
    rest = rest.slice(m.index + m[0].length);
  }
  return out;
}

function mark(m) {
  if (m[1] !== undefined) return el("code", [m[2].trim() === "" ? m[2] : m[2].replace(/^ (.*) $/, "$1")]);
  if (m[3] !== undefined) {
    if (!SAFE_LINK.test(m[4])) return document.createTextNode(m[0]);
    const a = el("a", inline(m[3]));
    a.href = m[4];
    a.target = "_blank";
    a.rel = "noopener noreferrer";
    return a;
  }
  if (m[5] !== undefined || m[6] !== undefined) return el("strong", inline(m[5] ?? m[6]));
  if (m[7] !== undefined || m[8] !== undefined) return el("em", inline(m[7] ?? m[8]));
  return el("del", inline(m[9]));
}
