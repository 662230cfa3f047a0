// Stand-ins, on 127.0.0.1, for the model APIs the hosts call: an
// OpenAI-compatible chat completions API (Qwen Code, opencode's and Kilo's
// custom providers, Copilot CLI's BYOK provider) and the Gemini API (Gemini
// CLI). Claude Code's Anthropic
// Messages API is test/support/fake-messages-api.mjs. Each asks, in the first
// turn that offers the tools it wants, for its calls (the tool picked by a
// test on the offered names: hosts name an MCP tool in their own way), all at
// once; every other turn gets "done". The tool results the host sends back
// are kept: `results` maps a call's id to its text.
import { jsonServer } from '../../test/support/fake-messages-api.mjs';

/** What a turn offered, for CHECK_HOSTS_DEBUG_API=1 (a host that names its tools anew): the tool names, the roles so far. */
function offeredOf(json) {
  const tools = (json.tools ?? []).flatMap((t) => t.functionDeclarations?.map((f) => f.name) ?? [t.function?.name ?? t.name]);
  return { tools, roles: (json.messages ?? json.contents ?? []).map((m) => m.role) };
}

/**
 * calls: [{ id, pick(name) (whether an offered tool is the one), args }].
 * Resolves { url, results, requests (how many turns came), close }.
 */
function standIn(calls, route) {
  const results = new Map();
  const state = { requests: 0 };
  const server = jsonServer((req, res, json) => {
    state.requests++;
    if (process.env.CHECK_HOSTS_DEBUG_API) console.error('stand-in', req.method, req.url, JSON.stringify(offeredOf(json)));
    route(req, res, json, calls, results);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}`;
      resolve({ url, results, get requests() { return state.requests; }, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }) });
    });
  });
}

/** The calls of `calls` whose tool is offered, with the offered name; undefined unless every one is. */
function chosen(calls, offered) {
  const named = calls.map((c) => ({ ...c, name: offered.find((n) => c.pick(n)) }));
  return named.every((c) => c.name !== undefined) ? named : undefined;
}

/** An OpenAI-compatible API (/v1/chat/completions, /v1/models), streamed or not. */
export function openAiApi(calls) {
  return standIn(calls, (req, res, json, wanted, results) => {
    if (req.method === 'GET' || !req.url.includes('chat/completions')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'stand-in', object: 'model', created: 0, owned_by: 'check-hosts' }] }));
      return;
    }
    for (const m of json.messages ?? []) {
      if (m.role === 'tool') results.set(m.tool_call_id, typeof m.content === 'string' ? m.content : (m.content ?? []).map((c) => c.text ?? '').join(''));
    }
    const offered = (json.tools ?? []).map((t) => t.function?.name ?? t.name);
    const answered = (json.messages ?? []).some((m) => m.role === 'tool');
    const picked = answered ? undefined : chosen(wanted, offered);
    const toolCalls = (picked ?? []).map((c, index) => ({ index, id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) } }));
    const base = { id: 'chatcmpl-check-hosts', created: 0, model: json.model ?? 'stand-in' };
    const usage = { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 };
    const finish = picked ? 'tool_calls' : 'stop';
    if (!json.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: picked ? null : 'done', tool_calls: picked ? toolCalls : undefined }, finish_reason: finish }], usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta, finishReason = null, extra = {}) => res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
    chunk(picked ? { role: 'assistant', tool_calls: toolCalls } : { role: 'assistant', content: 'done' });
    chunk({}, finish, { usage });
    res.end('data: [DONE]\n\n');
  });
}

/** The Gemini API (models/*:generateContent, :streamGenerateContent, :countTokens). */
export function geminiApi(calls) {
  return standIn(calls, (req, res, json, wanted, results) => {
    if (req.url.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    let answered = false;
    for (const content of json.contents ?? []) {
      for (const part of content.parts ?? []) {
        if (part.functionResponse) {
          answered = true;
          results.set(part.functionResponse.id ?? part.functionResponse.name, JSON.stringify(part.functionResponse.response));
        }
      }
    }
    const offered = (json.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    const picked = answered ? undefined : chosen(wanted, offered);
    const parts = picked ? picked.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.args ?? {} } })) : [{ text: 'done' }];
    const reply = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 }, modelVersion: 'stand-in' };
    if (!req.url.includes('streamGenerateContent')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify(reply)}\n\n`);
  });
}
