// A scripted, deterministic OpenAI-compatible mock endpoint (CORS enabled) for the
// end-to-end suite. Each reply is a pure function of the request (the current user turn
// and how many assistant steps followed it), so the page and `wildtool run` get the
// same answers in any order and at any concurrency.
//
// Usage: node tests/e2e/mock-openai.mjs [port]   → prints "mock openai: http://127.0.0.1:PORT/v1"
// Options via env: MOCK_DELAY_MS (per request, default 0).
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';

export const HOSTILE = '<img src=x onerror="window.__pwned=1">';

function h(text) {
  return createHash('sha256').update(text).digest();
}

function toolName(t) {
  return t?.function?.name ?? t?.name ?? '';
}

function schemaOf(t) {
  return t?.function?.parameters ?? t?.input_schema ?? {};
}

/** Arguments from the user's words: enum mentioned, else first; numbers; proper nouns. */
function fill(schema, text, variant) {
  const args = {};
  const props = schema?.properties || {};
  const required = Array.isArray(schema?.required) ? schema.required : [];
  const words = text.match(/[A-Z][a-zA-Z]+/g) || [];
  const number = (text.match(/\d+(\.\d+)?/) || [])[0];
  for (const k of required) {
    const p = props[k] || {};
    if (Array.isArray(p.enum)) args[k] = p.enum.find((e) => text.toLowerCase().includes(String(e).toLowerCase())) ?? p.enum[0];
    else if (p.type === 'integer') args[k] = number ? parseInt(number, 10) : 1;
    else if (p.type === 'number') args[k] = number ? Number(number) : 1;
    else if (p.type === 'boolean') args[k] = true;
    else if (p.type === 'array') args[k] = [];
    else if (p.type === 'object') args[k] = {};
    else args[k] = words[(variant + required.indexOf(k)) % Math.max(1, words.length)] || text.slice(0, 40);
  }
  return args;
}

/** The scripted decision for one request. */
export function decide(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const tools = Array.isArray(body.tools) ? body.tools : [];
  let lastUser = -1;
  messages.forEach((m, i) => { if (m?.role === 'user') lastUser = i; });
  const userText = typeof messages[lastUser]?.content === 'string' ? messages[lastUser].content : JSON.stringify(messages[lastUser]?.content ?? '');
  const after = messages.slice(lastUser + 1).filter((m) => m?.role === 'assistant').length;
  const digest = h(`${userText}\u0000${tools.map(toolName).join(',')}`);
  const mode = digest[0] % 5;
  const words = new Set((userText.toLowerCase().match(/[a-z0-9]{3,}/g) || []));
  const scored = tools.map((t, i) => {
    const text = `${toolName(t).replace(/_/g, ' ')} ${t?.function?.description ?? ''}`.toLowerCase();
    const hits = new Set(text.match(/[a-z0-9]{3,}/g) || []);
    return { i, score: [...hits].filter((w) => words.has(w)).length };
  }).sort((a, b) => b.score - a.score || a.i - b.i);
  if (after >= 2 || mode === 0 || !tools.length) {
    return { content: `Here is what I found. ${HOSTILE}` };
  }
  if (after === 1) {
    return { content: mode === 4 ? `Could you tell me more? ${HOSTILE}` : `Done: ${userText.slice(0, 60)}` };
  }
  if (mode === 4) return { content: 'Which one exactly do you mean?' };
  const pick = tools[scored[0].i];
  const calls = [{ name: toolName(pick), args: fill(schemaOf(pick), userText, mode) }];
  if (mode === 3 && scored[1] && scored[1].score > 0) {
    const second = tools[scored[1].i];
    calls.push({ name: toolName(second), args: fill(schemaOf(second), userText, mode) });
  }
  return {
    content: null,
    tool_calls: calls.map((c, j) => ({
      id: `call_${digest.toString('hex').slice(0, 10)}_${after}_${j}`,
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    })),
  };
}

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, GET, OPTIONS',
  'Access-Control-Allow-Headers': 'authorization, content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access',
  'Access-Control-Expose-Headers': 'retry-after',
};

/** Starts the mock; `cors: false` makes a server browsers may not call (CORS failure tests). */
export function startMock(port = 0, { delayMs = Number(process.env.MOCK_DELAY_MS || 0), cors = true } = {}) {
  const stats = { requests: 0, auth: [] };
  const CORS = cors ? CORS_HEADERS : {};
  const server = createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      res.end();
      return;
    }
    if (req.method === 'GET' && req.url.endsWith('/models')) {
      res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' });
      res.end('{"object": "list", "data": [{"id": "mock", "object": "model"}]}');
      return;
    }
    if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
      res.writeHead(404, { ...CORS, 'Content-Type': 'application/json' });
      res.end('{"error": {"message": "not found"}}');
      return;
    }
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      stats.requests += 1;
      stats.auth.push(req.headers.authorization ?? req.headers['x-api-key'] ?? null);
      let body;
      try { body = JSON.parse(raw); } catch {
        res.writeHead(400, { ...CORS, 'Content-Type': 'application/json' });
        res.end('{"error": {"message": "bad json"}}');
        return;
      }
      const message = { role: 'assistant', ...decide(body) };
      const reply = {
        id: 'chatcmpl-mock',
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: 7, total_tokens: Math.ceil(raw.length / 4) + 7 },
      };
      setTimeout(() => {
        res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' });
        res.end(JSON.stringify(reply));
      }, delayMs);
    });
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}/v1`;
      resolve({ url, stats, setDelay: (ms) => { delayMs = ms; }, stop: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const m = await startMock(Number(process.argv[2] || 0));
  console.log(`mock openai: ${m.url}`);
}
