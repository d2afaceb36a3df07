/**
 * The default prompt templates (elizaOS's shouldRespondTemplate and messageHandlerTemplate, the latter
 * extended with the `<params>` block, see docs/eliza.md) and the `{{variable}}` interpolation.
 * Override per character (`templates` in the character file), at runtime (`runtime.character.templates`)
 * or from a plugin's `init`.
 */
import type { State } from "./types.js";

export const shouldRespondTemplate = `<task>Decide on behalf of {{agentName}} whether they should respond to the message, ignore it or stop the conversation.</task>

<providers>
{{providers}}
</providers>

<instructions>Decide if {{agentName}} should respond to or interact with the conversation.
If the message is directed at or relevant to {{agentName}}, respond with RESPOND action.
If a user asks {{agentName}} to be quiet, respond with STOP action.
If {{agentName}} should ignore the message, respond with IGNORE action.</instructions>

<output>
<response>
  <name>{{agentName}}</name>
  <reasoning>Your reasoning here</reasoning>
  <action>RESPOND | IGNORE | STOP</action>
</response>
</output>`;

export const messageHandlerTemplate = `<task>Generate dialog and actions for the character {{agentName}}.</task>

<providers>
{{providers}}
</providers>

These are the available valid actions:
<actionNames>
{{actionNames}}
</actionNames>

<instructions>
Write a thought and plan for {{agentName}} and decide what actions to take.

IMPORTANT ACTION ORDERING RULES:
- Actions are executed in the ORDER you list them
- REPLY should come FIRST to acknowledge the user's request
- Common patterns:
  - For requests: REPLY,CALL_MCP_TOOL
  - For tasks: REPLY,SEND_MESSAGE
  - For multi-step: REPLY,ACTION1,ACTION2

PARAMETERS:
- Actions that take parameters list them under "Action parameters" above.
- Put them in <params>, one element per action, one child element per parameter.
- Omit <params> when no listed action takes parameters.
</instructions>

<output>
<response>
    <thought>Your thought here</thought>
    <actions>ACTION1,ACTION2</actions>
    <providers>PROVIDER1,PROVIDER2</providers>
    <text>Your response text here</text>
    <params>
        <ACTION1>
            <paramName>value</paramName>
        </ACTION1>
    </params>
</response>
</output>`;

/**
 * The prompt that reads a user's answer to the question for an action's missing parameters (asking back):
 * `{{actionName}}`, `{{parameterList}}` (one line per parameter: name, description, type) and
 * `{{messageText}}` are filled in. Override as `parametersTemplate`.
 */
export const parametersTemplate = `<task>{{agentName}} asked the user for the missing parameters of the action {{actionName}}. Read the user's answer.</task>

<parameters>
{{parameterList}}
</parameters>

<answer>
{{messageText}}
</answer>

<instructions>
Put each parameter the answer gives in <params>, under the action's element, one child element per parameter.
Dates are written YYYY-MM-DD (today is {{today}}). Leave out any parameter the answer does not give; never guess.
</instructions>

<output>
<response>
    <params>
        <{{actionName}}>
            <paramName>value</paramName>
        </{{actionName}}>
    </params>
</response>
</output>`;

const VARIABLE = /\{\{\{?\s*([\w.]+)\s*\}?\}\}/g;

/**
 * Fills `{{name}}` (and handlebars-style `{{{name}}}`) from `state.values`; objects are written as JSON,
 * unknown names as "". No HTML escaping: prompts are not HTML.
 */
export function composePromptFromState({ state, template }: { state: State; template: string }): string {
  return template.replace(VARIABLE, (_whole, name: string) => {
    const value = state.values[name];
    if (value === undefined || value === null) return "";
    return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  });
}
