import { describe, expect, test } from "@jest/globals";
import { parseKeyValueXml, unescapeXml } from "../../agents/eliza/xml.js";
import { ReplyTextExtractor } from "../../agents/eliza/text-stream.js";

describe("parseKeyValueXml", () => {
  test("reads elizaOS's response block: lists, text, params", () => {
    const parsed = parseKeyValueXml(`Sure.
<response>
  <thought>The user wants a flight</thought>
  <actions>REPLY, BOOK_FLIGHT</actions>
  <providers></providers>
  <text>I'll book that &amp; confirm.</text>
  <params>
    <BOOK_FLIGHT>
      <origin>SFO</origin>
      <passengerCount>2</passengerCount>
    </BOOK_FLIGHT>
  </params>
</response>`);
    expect(parsed).toEqual({
      thought: "The user wants a flight",
      actions: ["REPLY", "BOOK_FLIGHT"],
      providers: [],
      text: "I'll book that & confirm.",
      params: { BOOK_FLIGHT: { origin: "SFO", passengerCount: "2" } },
    });
  });

  test("works without a <response> wrapper and inside code fences", () => {
    expect(parseKeyValueXml("```xml\n<thought>t</thought><actions>REPLY</actions>\n```")).toEqual({
      thought: "t",
      actions: ["REPLY"],
    });
  });

  test("simple is a boolean; the first occurrence of a key wins", () => {
    expect(parseKeyValueXml("<response><simple>true</simple><text>a</text><text>b</text></response>")).toEqual({ simple: true, text: "a" });
  });

  test("text keeps inline markup as written (it is not parsed as params)", () => {
    expect(parseKeyValueXml("<response><text>use <b>bold</b></text></response>")?.text).toBe("use <b>bold</b>");
  });

  test("returns null for an incomplete or non-XML reply", () => {
    expect(parseKeyValueXml("")).toBeNull();
    expect(parseKeyValueXml(null)).toBeNull();
    expect(parseKeyValueXml("I am just talking")).toBeNull();
    expect(parseKeyValueXml("<response><thought>cut off")).toBeNull();
  });

  test("an empty params element gives {}", () => {
    expect(parseKeyValueXml("<response><params></params><actions>A</actions></response>")).toEqual({ params: {}, actions: ["A"] });
  });

  test("unescapeXml decodes named and numeric references only", () => {
    expect(unescapeXml("&lt;a&gt; &#65;&#x42; &unknown; &")).toBe("<a> AB &unknown; &");
  });
});

describe("ReplyTextExtractor", () => {
  const feedAll = (chunks: string[]) => {
    const x = new ReplyTextExtractor();
    return chunks.map((c) => x.feed(c));
  };

  test("emits only the content of <text>, as it arrives", () => {
    expect(feedAll(["<response><thought>hm</thought><te", "xt>Hel", "lo wor", "ld</text><params/></response>"])).toEqual(["", "Hel", "lo wor", "ld"]);
  });

  test("holds back what may be the closing tag or an entity", () => {
    expect(feedAll(["<text>a</", "te", "xt>"])).toEqual(["a", "", ""]);
    expect(feedAll(["<text>fish &am", "p; chips</text>"])).toEqual(["fish ", "& chips"]);
    expect(feedAll(["<text>1 <", " 2</text>"])).toEqual(["1 ", "< 2"]);
  });

  test("ignores everything after </text>", () => {
    const x = new ReplyTextExtractor();
    expect(x.feed("<text>done</text><text>again</text>")).toBe("done");
    expect(x.done).toBe(true);
    expect(x.feed("more")).toBe("");
  });
});
