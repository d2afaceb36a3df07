/**
 * The example plugin: PLAY_MUSIC (live progress callbacks that replace each other) and BOOK_FLIGHT
 * (parameters extracted, coerced and validated). Loaded when the character's `plugins` list names
 * "example" (the default character does). docs/eliza-plugins.md walks through it.
 */
import type { Plugin } from "../../types.js";
import { bookFlightAction } from "./book-flight.js";
import { playMusicAction } from "./play-music.js";

export const examplePlugin: Plugin = {
  name: "example",
  description: "Demo actions: a music player with live progress and a flight booking with parameters",
  actions: [playMusicAction, bookFlightAction],
};

export default examplePlugin;
