/** The core actions every agent has: REPLY, IGNORE, NONE. */
import type { Action } from "../../types.js";

const always = async () => true;

/** Sends the model's reply text. The runtime shows it once: tokens already streamed are not repeated. */
export const replyAction: Action = {
  name: "REPLY",
  similes: ["GREET", "RESPOND", "RESPONSE", "ANSWER"],
  description:
    "Replies to the current conversation with the text from the generated message. Default if the agent is responding with a message and no other action.",
  validate: always,
  handler: async (_runtime, message, _state, _options, callback, responses) => {
    const reply = responses?.find((r) => typeof r.content.text === "string" && r.content.text !== "")?.content;
    const text = reply?.text ?? "";
    if (text) await callback?.({ text, thought: reply?.thought, actions: ["REPLY"], source: message.content.source });
    return { success: true, text, values: { lastReply: text } };
  },
  examples: [
    [
      { name: "user", content: { text: "Hello there!" } },
      { name: "agent", content: { text: "Hi! How can I help you today?", actions: ["REPLY"] } },
    ],
  ],
};

/** Stays silent on purpose (and ends the chain). */
export const ignoreAction: Action = {
  name: "IGNORE",
  similes: ["STOP_TALKING", "STOP_CONVERSATION", "IGNORE_MESSAGE"],
  description: "Call this action if ignoring the user is the right thing to do: the conversation is over or the message is not for the agent.",
  validate: always,
  handler: async (_runtime, message, _state, _options, callback, responses) => {
    await callback?.({ thought: responses?.[0]?.content.thought, actions: ["IGNORE"], source: message.content.source });
    return { success: true, continueChain: false };
  },
};

/** Does nothing: the reply (if any) is all there is. */
export const noneAction: Action = {
  name: "NONE",
  similes: ["NO_ACTION", "NO_RESPONSE", "PASS"],
  description: "Respond but perform no additional action. This is the default if the agent is speaking and not doing anything else.",
  validate: always,
  handler: async () => ({ success: true }),
};
