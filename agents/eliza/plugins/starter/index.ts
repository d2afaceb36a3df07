/** The starter plugin (plugin.ts): load it with `--eliza-plugin dist/agents/eliza/plugins/starter/index.js`. */
export { starterPlugin, StarterService, type StarterStats } from "./plugin.js";
export { default } from "./plugin.js";
