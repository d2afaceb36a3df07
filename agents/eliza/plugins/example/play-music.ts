/**
 * PLAY_MUSIC: a music-player-like action that shows live progress. Its statuses replace each other
 * ("Looking up track..." -> "Searching for track..." -> "Setting up playback..." -> "Now playing: ..."),
 * the sequence elizaOS's music-player plugin shows. It plays nothing: it is a demo.
 */
import type { Action } from "../../types.js";
import { numberSetting, ProgressiveMessage } from "./progress.js";

/** "some cool jazz" -> "Some Cool Jazz". */
function titleOf(query: string): string {
  return query
    .split(/\s+/)
    .filter((w) => w !== "")
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(" ");
}

/** The words after "play" when the model gave no query. */
function queryFromMessage(text: string): string | undefined {
  const m = /\bplay\s+(?:me\s+)?(.+?)[.!?]*$/i.exec(text);
  return m?.[1].trim() || undefined;
}

export const playMusicAction: Action = {
  name: "PLAY_MUSIC",
  description: "Play a song, artist or genre for the user",
  similes: ["PLAY", "PLAY_SONG", "MUSIC", "SONG", "TRACK"],
  tags: ["music"],
  parameters: [
    {
      name: "query",
      description: "What to play: a track, an artist or a genre",
      required: false,
      schema: { type: "string" },
      examples: ["Blue in Green", "Miles Davis", "some jazz"],
    },
  ],
  validate: async () => true,
  handler: async (runtime, message, _state, options, callback) => {
    const query = (options?.parameters?.query as string | undefined) ?? queryFromMessage(message.content.text ?? "") ?? "something nice";
    const title = titleOf(query);
    const progress = new ProgressiveMessage({
      callback,
      source: message.content.source,
      delayMs: numberSetting(runtime, "MUSIC_PROGRESS_DELAY_MS", 0),
      signal: options?.signal,
    });
    await progress.update("🔍 Looking up track...");
    await progress.update("🔍 Searching for track...");
    await progress.update("✨ Setting up playback...");
    const nowPlaying = `Now playing: **${title}**`;
    await progress.update(nowPlaying);
    return { success: true, text: nowPlaying, values: { nowPlaying: title }, data: { track: { title, query } } };
  },
  examples: [
    [
      { name: "user", content: { text: "Play some jazz" } },
      { name: "agent", content: { text: "Sure! Let me play that.", actions: ["REPLY", "PLAY_MUSIC"] } },
    ],
  ],
};
