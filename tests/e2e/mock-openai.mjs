// A scripted, deterministic OpenAI-compatible mock endpoint (CORS enabled) for the
// end-to-end suite. Each reply is a pure function of the request (the current user turn
// and how many assistant steps followed it), so the page and `wildtool run` get the
// same answers in any order and at any concurrency.
//
// It also answers the Gemini API's own format (`POST /v1beta/models/M:generateContent`,
// `GET /v1beta/models`) with the same decisions, and counts how many requests it serves
// at once (`stats.peak`), under which host name (`stats.hosts`). A request with
// `"stream": true` (or Gemini's `:streamGenerateContent?alt=sse`) gets the same answer as
// an event stream, token by token; `streamFault` breaks streamed answers the way known
// server bugs do (`drop-arguments`: calls without their arguments; `merge-calls`: every
// call at index 0 with one id).
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
  'Access-Control-Allow-Headers': 'authorization, content-type, x-api-key, x-goog-api-key, anthropic-version, anthropic-dangerous-direct-browser-access',
  'Access-Control-Expose-Headers': 'retry-after',
};

/** A Gemini `generateContent` body as the OpenAI-shaped request `decide` reads. */
function fromGemini(body) {
  const messages = [];
  for (const c of Array.isArray(body.contents) ? body.contents : []) {
    const parts = Array.isArray(c?.parts) ? c.parts : [];
    if (c?.role === 'model') {
      const calls = parts.filter((p) => p.functionCall);
      const text = parts.filter((p) => typeof p.text === 'string' && !p.thought).map((p) => p.text).join('');
      messages.push({ role: 'assistant', content: text || null, tool_calls: calls.length ? calls : undefined });
    } else {
      for (const p of parts) {
        if (p.functionResponse) messages.push({ role: 'tool', content: JSON.stringify(p.functionResponse.response ?? {}) });
        else if (typeof p.text === 'string') messages.push({ role: 'user', content: p.text });
      }
    }
  }
  const tools = (Array.isArray(body.tools) ? body.tools : []).flatMap((t) => t?.functionDeclarations ?? [])
    .map((d) => ({ type: 'function', function: { name: d.name, description: d.description, parameters: d.parametersJsonSchema ?? d.parameters ?? {} } }));
  return { messages, tools };
}

/** `decide`'s answer in the Gemini API's reply format. */
function toGemini(message, promptTokens) {
  const parts = message.tool_calls
    ? message.tool_calls.map((c) => ({ functionCall: { name: c.function.name, args: JSON.parse(c.function.arguments) } }))
    : [{ text: message.content ?? '' }];
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: promptTokens, candidatesTokenCount: 7, totalTokenCount: promptTokens + 7 },
  };
}

const STREAM_MEMBERS = ', "stream": true, "stream_options": {"include_usage": true}}';

/** Text cut into pieces of `n` characters (code points). */
function pieces(text, n) {
  const chars = [...text];
  const out = [];
  for (let i = 0; i < chars.length; i += n) out.push(chars.slice(i, i + n).join(''));
  return out;
}

/** `reply` (a chat.completion body) as the events of a Chat Completions stream. */
function chatEvents(reply, { usage, fault }) {
  const message = reply.choices[0].message;
  const chunk = (delta, finish = null) => ({ id: reply.id, object: 'chat.completion.chunk', model: reply.model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out = [chunk({ role: 'assistant', content: '' })];
  for (const p of pieces(message.content ?? '', 3)) out.push(chunk({ content: p }));
  (message.tool_calls ?? []).forEach((c, i) => {
    const index = fault === 'merge-calls' ? 0 : i;
    const id = fault === 'merge-calls' ? 'call_same' : c.id;
    out.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: c.function.name, arguments: '' } }] }));
    if (fault === 'drop-arguments') return;
    for (const p of pieces(c.function.arguments, 4)) out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  out.push(chunk({}, reply.choices[0].finish_reason));
  if (usage) out.push({ id: reply.id, object: 'chat.completion.chunk', choices: [], usage: reply.usage });
  return out.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
}

/** A Gemini reply as the events of `streamGenerateContent?alt=sse`. */
function geminiEvents(reply) {
  const parts = reply.candidates[0].content.parts.flatMap((p) => (typeof p.text === 'string' ? pieces(p.text, 3).map((t) => ({ text: t })) : [p]));
  return parts.map((p, i) => {
    const last = i === parts.length - 1;
    const candidate = { content: { role: 'model', parts: [p] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) };
    return `data: ${JSON.stringify({ candidates: [candidate], ...(last ? { usageMetadata: reply.usageMetadata } : {}) })}\r\n\r\n`;
  }).join('');
}

/**
 * Starts the mock; `cors: false` makes a server browsers may not call (CORS failure tests);
 * `fail: {status, body, retryAfter}` answers every chat request with that error;
 * `strictHost: true` refuses (403) requests addressed to any name but 127.0.0.1, as servers
 * that check the Host header do.
 */
export function startMock(port = 0, { delayMs = Number(process.env.MOCK_DELAY_MS || 0), cors = true, fail = null, strictHost = false, streamFault = null, usage = true } = {}) {
  const stats = { requests: 0, auth: [], geminiKeys: [], urls: [], hosts: {}, serving: 0, peak: 0 };
  const CORS = cors ? CORS_HEADERS : {};
  const server = createServer((req, res) => {
    const host = (req.headers.host || '').replace(/:\d+$/, '');
    if (strictHost && host !== '127.0.0.1') {
      res.writeHead(403, { ...CORS, 'Content-Type': 'application/json' });
      res.end('{"error": {"message": "host not allowed"}}');
      return;
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      res.end();
      return;
    }
    stats.urls.push(req.url);
    const gemini = /\/models\/[^/]+:(stream)?[gG]enerateContent(\?alt=sse)?$/.test(req.url);
    const geminiStream = gemini && req.url.includes(':streamGenerateContent');
    if (req.method === 'GET' && /\/models(\?.*)?$/.test(req.url)) {
      res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' });
      res.end(req.url.includes('/v1beta/')
        ? '{"models": [{"name": "models/gemini-mock", "supportedGenerationMethods": ["generateContent"]}, {"name": "models/embedder", "supportedGenerationMethods": ["embedContent"]}]}'
        : '{"object": "list", "data": [{"id": "mock", "object": "model"}, {"id": "mock-large", "object": "model"}]}');
      return;
    }
    if (req.method !== 'POST' || !(req.url.endsWith('/chat/completions') || gemini)) {
      res.writeHead(404, { ...CORS, 'Content-Type': 'application/json' });
      res.end('{"error": {"message": "not found"}}');
      return;
    }
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      stats.requests += 1;
      stats.hosts[host] = (stats.hosts[host] || 0) + 1;
      stats.auth.push(req.headers.authorization ?? req.headers['x-api-key'] ?? req.headers['x-goog-api-key'] ?? null);
      if (gemini) stats.geminiKeys.push(req.headers['x-goog-api-key'] ?? null);
      if (fail) {
        const headers = { ...CORS, 'Content-Type': 'application/json' };
        if (fail.retryAfter !== undefined) headers['Retry-After'] = String(fail.retryAfter);
        res.writeHead(fail.status, headers);
        res.end(fail.body ?? '{"error": {"message": "mock failure"}}');
        return;
      }
      let body;
      try { body = JSON.parse(raw); } catch {
        res.writeHead(400, { ...CORS, 'Content-Type': 'application/json' });
        res.end('{"error": {"message": "bad json"}}');
        return;
      }
      const message = { role: 'assistant', ...decide(gemini ? fromGemini(body) : body) };
      // A streamed request counts as the same prompt.
      const promptTokens = Math.ceil(raw.replace(STREAM_MEMBERS, '}').length / 4);
      const streamed = geminiStream || body.stream === true;
      const reply = gemini ? toGemini(message, promptTokens) : {
        id: 'chatcmpl-mock',
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: promptTokens, completion_tokens: 7, total_tokens: promptTokens + 7 },
      };
      // `usage: false`: a server that reports no token counts.
      if (!usage) delete reply.usage;
      stats.serving += 1;
      stats.peak = Math.max(stats.peak, stats.serving);
      let open = true;
      const done = () => { if (open) { open = false; stats.serving -= 1; } };
      const timer = setTimeout(() => {
        done();
        if (res.destroyed) return;
        if (streamed) {
          res.writeHead(200, { ...CORS, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
          const text = gemini ? geminiEvents(reply) : chatEvents(reply, { usage: body.stream_options?.include_usage, fault: streamFault });
          for (const event of text.split(/(?<=\n\n)/)) res.write(event);
          res.end();
          return;
        }
        res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' });
        res.end(JSON.stringify(reply));
      }, delayMs);
      // An abandoned request's answer is not kept waiting (nor the test process with it).
      res.on('close', () => { done(); clearTimeout(timer); });
    });
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}/v1`;
      resolve({
        url,
        stats,
        setDelay: (ms) => { delayMs = ms; },
        setFail: (f) => { fail = f; },
        setStreamFault: (f) => { streamFault = f; },
        stop: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const m = await startMock(Number(process.argv[2] || 0));
  console.log(`mock openai: ${m.url}`);
}
