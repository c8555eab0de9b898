// Tool loops of the agent frameworks people build on, against the scripted mocker
// (docs/mocker-script.md): the model answers the task with a hermes tool call, the framework runs
// the tool, and the turn after the tool's result gets the final text. @openai/agents, the Vercel AI
// SDK (generateText with tools over several steps) and LangChain (bindTools), each over chat
// completions and over the Responses API.
import { createOpenAI } from '@ai-sdk/openai';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { Agent, OpenAIProvider, Runner, tool as agentsTool } from '@openai/agents';
import { generateText, stepCountIs, tool as aiTool } from 'ai';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { z } from 'zod';
import { serveInProcess } from '../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const FINAL = 'Created the marker file.';
const TASK = 'Create the marker file named m1.';
const CALL = `<tool_call>\n${JSON.stringify({ name: 'create_marker', arguments: { name: 'm1' } })}\n</tool_call>`;
const SCRIPT = `replies:\n  - turn: 0\n    contains: marker\n    text: ${JSON.stringify(CALL)}\n  - turn: 1\n    text: ${JSON.stringify(FINAL)}\n  - text: "OK."\n`;

const APIS = ['chat', 'responses'] as const;

describe('agent frameworks drive a tool loop against the scripted mocker', () => {
  let server: Awaited<ReturnType<typeof serveInProcess>>;
  let baseURL: string;
  before(async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'sdk-script-')), 'script.yaml');
    writeFileSync(file, SCRIPT);
    server = await serveInProcess(['--dyn-tool-call-parser', 'hermes', '--dyn-reasoning-parser', 'qwen3', '--mocker-script', file, '--speedup-ratio', '1000']);
    baseURL = `${server.baseUrl}/v1`;
  });
  after(() => server.service.stop());

  for (const api of APIS) {
    test(`@openai/agents over ${api}: the tool runs and the run's final output is the answer`, async () => {
      const made: string[] = [];
      const createMarker = agentsTool({
        name: 'create_marker',
        description: 'Create a marker file.',
        parameters: z.object({ name: z.string() }),
        execute: async ({ name }) => {
          made.push(name);
          return `created ${name}`;
        },
      });
      const agent = new Agent({ name: 'worker', instructions: 'Use the tools.', model: MODEL, tools: [createMarker] });
      // The agents SDK types its client against its own copy of the openai package.
      type AgentsClient = NonNullable<ConstructorParameters<typeof OpenAIProvider>[0]>['openAIClient'];
      const openAIClient = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0 }) as unknown as AgentsClient;
      const provider = new OpenAIProvider({ openAIClient, useResponses: api === 'responses' });
      const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
      const result = await runner.run(agent, TASK);
      assert.deepEqual(made, ['m1']);
      assert.equal(result.finalOutput, FINAL);
    });

    test(`Vercel AI SDK generateText over ${api}: two steps, the tool's result fed back`, async () => {
      const made: string[] = [];
      const provider = createOpenAI({ baseURL, apiKey: 'unused' });
      const result = await generateText({
        model: api === 'chat' ? provider.chat(MODEL) : provider.responses(MODEL),
        prompt: TASK,
        tools: {
          create_marker: aiTool({
            description: 'Create a marker file.',
            inputSchema: z.object({ name: z.string() }),
            execute: async ({ name }) => {
              made.push(name);
              return `created ${name}`;
            },
          }),
        },
        stopWhen: stepCountIs(4),
      });
      assert.deepEqual(made, ['m1']);
      assert.equal(result.steps.length, 2);
      assert.equal(result.text, FINAL);
    });

    test(`LangChain bindTools over ${api}: the call, the tool message, the answer`, async () => {
      const made: string[] = [];
      const createMarker = langchainTool(
        async ({ name }: { name: string }) => {
          made.push(name);
          return `created ${name}`;
        },
        { name: 'create_marker', description: 'Create a marker file.', schema: z.object({ name: z.string() }) },
      );
      const llm = new ChatOpenAI({ model: MODEL, apiKey: 'unused', configuration: { baseURL }, useResponsesApi: api === 'responses', maxRetries: 0 });
      const withTools = llm.bindTools([createMarker]);
      const messages: BaseMessage[] = [new HumanMessage(TASK)];
      const first = (await withTools.invoke(messages)) as AIMessage;
      assert.equal(first.tool_calls?.length, 1);
      messages.push(first);
      for (const call of first.tool_calls ?? []) {
        messages.push(new ToolMessage({ tool_call_id: call.id!, content: String(await createMarker.invoke(call.args as { name: string })) }));
      }
      const second = await withTools.invoke(messages);
      assert.deepEqual(made, ['m1']);
      // Over Responses LangChain gives content blocks; `text` is their text either way.
      assert.equal(second.text, FINAL);
    });
  }
});
