// A fake Anthropic Messages API on 127.0.0.1, for running Claude Code
// (`claude -p`, the TUI) against it with ANTHROPIC_BASE_URL: it asks for the
// tool calls it is given once and then ends the turn. Used by
// scripts/check-hosts/ and bench/launcher.mjs; jsonServer(), the body read as JSON, serves
// check-hosts' other stand-ins too.
import http from 'node:http';

/** An HTTP server that hands each request's body, parsed as JSON ({} when it is not), to `handle(req, res, json)`. */
export function jsonServer(handle) {
  return http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      let json = {};
      try {
        json = JSON.parse(body);
      } catch {
        // Not JSON: answered as a plain turn.
      }
      handle(req, res, json);
    });
  });
}

/**
 * A fake Anthropic Messages API on 127.0.0.1. A turn offered every tool of
 * `calls` ([{ id, name, input }]; default: the raw server's `progress`) and
 * holding no tool result yet is answered with a call of each; every other
 * turn with "done" (streamed or not, as asked). The tool results sent back
 * are kept: `results` maps a call's id to its text. Resolves { url, results, close }.
 */
export function fakeMessagesApi(calls = [{ id: 'toolu_check_hosts', name: 'mcp__raw__progress', input: {} }]) {
  const results = new Map();
  const server = jsonServer((req, res, json) => {
    if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    for (const message of json.messages ?? []) {
      for (const part of Array.isArray(message.content) ? message.content : []) {
        if (part?.type !== 'tool_result') continue;
        const text = typeof part.content === 'string' ? part.content : (part.content ?? []).map((c) => c.text ?? '').join('');
        results.set(part.tool_use_id, text);
      }
    }
    const offered = new Set((json.tools ?? []).map((t) => t.name));
    const wantsTools = calls.every((c) => offered.has(c.name)) && !JSON.stringify(json.messages ?? []).includes('tool_result');
    const blocks = wantsTools ? calls.map(({ id, name, input }) => ({ type: 'tool_use', id, name, input })) : [{ type: 'text', text: 'done' }];
    const stop = wantsTools ? 'tool_use' : 'end_turn';
    const message = { id: 'msg_check_hosts', type: 'message', role: 'assistant', model: json.model ?? 'fake', stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 }, content: [] };
    if (!json.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...message, content: blocks, stop_reason: stop }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message_start', { message });
    blocks.forEach((block, index) => {
      const tool = block.type === 'tool_use';
      event('content_block_start', { index, content_block: tool ? { ...block, input: {} } : { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: tool ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } : { type: 'text_delta', text: 'done' } });
      event('content_block_stop', { index });
    });
    event('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
    event('message_stop', {});
    res.end();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, results, close: () => new Promise((r) => server.close(r)) }));
  });
}
