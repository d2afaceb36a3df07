/** The bootstrap plugin: the actions and providers every Eliza agent has. Always registered first. */
import type { Plugin } from "../../types.js";
import { ignoreAction, noneAction, replyAction } from "./actions.js";
import { actionsProvider, characterProvider, recentMessagesProvider } from "./providers.js";

export const bootstrapPlugin: Plugin = {
  name: "bootstrap",
  description: "Agent bootstrap with basic actions and providers",
  actions: [replyAction, ignoreAction, noneAction],
  providers: [characterProvider, recentMessagesProvider, actionsProvider],
};

export default bootstrapPlugin;
