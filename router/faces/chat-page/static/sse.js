/**
 * Reads a `data: <json>` event stream from a fetch Response: yields each event's parsed data, or the
 * string "[DONE]". Comments (`: ping`) and `id:` lines are skipped.
 */
export async function* readDataEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + (buffer[cut] === "\r" ? 4 : 2));
        const data = block
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(line[5] === " " ? 6 : 5))
          .join("\n");
        if (data === "") continue;
        yield data === "[DONE]" ? data : JSON.parse(data);
      }
    }
  } finally {
    reader.releaseLock();
  }
}
