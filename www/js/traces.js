// The trace viewer: session → task → step, rendered on demand. Only the rows of the
// current page are built, and a task's steps are built the first time it is opened.
import { $, el } from './dom.js';

const PAGE = 50;
let ctx = null;

const asText = (v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2));

function parsedSession(index) {
  if (ctx.parsed.has(index)) return ctx.parsed.get(index);
  const line = ctx.run.scoreLines?.get(index);
  let value = null;
  if (line) {
    try { value = JSON.parse(line); } catch { value = null; }
  }
  ctx.parsed.set(index, value);
  if (ctx.parsed.size > 64) ctx.parsed.delete(ctx.parsed.keys().next().value);
  return value;
}

function messageNode(m) {
  const role = typeof m?.role === 'string' ? m.role : '?';
  const box = el('div', { cls: `msg role-${role.replace(/[^a-z]/g, '')}` });
  box.append(el('span', { cls: 'msg-role', text: role }));
  if (m?.content !== undefined && m?.content !== null && m?.content !== '') box.append(el('pre', { cls: 'msg-text', text: asText(m.content) }));
  if (Array.isArray(m?.tool_calls)) {
    for (const c of m.tool_calls) box.append(el('pre', { cls: 'msg-call', text: `→ ${asText(c?.function?.name)}(${asText(c?.function?.arguments)})` }));
  }
  return box;
}

function stepNode(name, step) {
  const out = step?.inference_output || {};
  const verdict = out.current_action_name_label === 'correct' && (out.current_action_arguments_label ?? 'correct') === 'correct' ? 'correct' : 'error';
  const d = el('details', { cls: `step verdict-${verdict}` });
  d.append(el('summary', { text: `${name.replace('_', ' ')} · names ${asText(out.current_action_name_label) || '—'} · arguments ${asText(out.current_action_arguments_label) || '—'}` }));
  d.addEventListener('toggle', () => {
    if (!d.open || d.dataset.built) return;
    d.dataset.built = '1';
    const msgs = step?.inference_input?.messages;
    const seen = el('details', { cls: 'sub' });
    seen.append(el('summary', { text: `Messages the model saw (${Array.isArray(msgs) ? msgs.length : 0})` }));
    if (Array.isArray(msgs)) for (const m of msgs) seen.append(messageNode(m));
    const output = el('div', { cls: 'sub' });
    output.append(el('h5', { text: 'Model output' }), messageNode({ role: 'assistant', content: out.content, tool_calls: out.tool_calls }));
    if (out.reasoning_content) output.append(el('pre', { cls: 'msg-text muted', text: asText(out.reasoning_content) }));
    const gold = el('div', { cls: 'sub' });
    gold.append(el('h5', { text: 'Gold candidates accepted at this step' }));
    for (const [k, cand] of Object.entries(step?.inference_answer || {})) {
      const actions = Array.isArray(cand?.action) ? cand.action : [];
      gold.append(el('pre', {
        cls: 'msg-call',
        text: `${k}: ${actions.map((a) => `${asText(a?.name)}(${asText(a?.arguments)})`).join(', ')}` + (cand?.observation !== undefined ? `\n  observation: ${asText(cand.observation)}` : ''),
      }));
    }
    const reasons = [];
    if (out.error_reason) reasons.push(asText(out.error_reason));
    if (Array.isArray(out.current_action_arguments_check_result)) {
      const checks = out.current_action_arguments_check_result.map(asText);
      if (checks.some((c) => c !== 'correct')) reasons.push(`argument checks: ${checks.join('; ')}`);
    }
    const verdictBox = el('p', { cls: `verdict ${verdict}`, text: `Verdict: ${verdict}` + (reasons.length ? ` — ${reasons.join(' · ')}` : '') });
    d.append(verdictBox, output, gold, seen);
  });
  return d;
}

function taskDetail(o) {
  const box = el('div', { cls: 'task-detail' });
  const session = parsedSession(o.session);
  const meta = ctx.sessions[o.session];
  box.append(el('p', { cls: 'user-msg', text: `User: ${meta?.tasks?.[o.position] ?? ''}` }));
  const results = session?.results;
  if (typeof results === 'string') {
    box.append(el('p', { cls: 'verdict error', text: `The session's result is an error string: ${results}` }));
    return box;
  }
  const t = Array.isArray(results) ? results[o.position] : null;
  if (!t) {
    box.append(el('p', { cls: 'muted', text: o.incomplete ? 'Incomplete: no result for this task.' : 'No trace recorded for this task.' }));
    return box;
  }
  box.append(el('p', { text: `Label ${asText(t.label)} · names ${asText(t.action_name_label)} · optimal ${t.is_optimal === true ? 'yes' : 'no'}` }));
  const log = t.inference_log || {};
  for (const [k, step] of Object.entries(log)) if (k.startsWith('step_')) box.append(stepNode(k, step));
  return box;
}

function taskRow(o) {
  const li = el('li', { cls: `trace ${o.correct ? 'ok' : 'bad'}` });
  const d = el('details');
  const meta = ctx.sessions[o.session];
  const error = o.error ? ` · ${o.error}` : '';
  d.append(el('summary', {
    text: `${meta?.id || `session ${o.session}`} · task ${o.position + 1} · ${o.task_type}${o.subtype ? ` / ${o.subtype}` : ''} · ${o.correct ? 'correct' : o.incomplete ? 'incomplete' : 'failed'}${error}`,
  }));
  d.addEventListener('toggle', () => {
    if (d.open && !d.dataset.built) {
      d.dataset.built = '1';
      d.append(taskDetail(o));
    }
  });
  li.append(d);
  return li;
}

function filtered() {
  const failed = $('f-failed').checked;
  const type = $('f-type').value;
  const subtype = $('f-subtype').value;
  const error = $('f-error').value;
  return ctx.run.outcomes.filter((o) => (!failed || !o.correct)
    && (!type || o.task_type === type)
    && (!subtype || (o.subtype || 'First turn') === subtype)
    && (!error || o.error === error));
}

function renderPage(reset) {
  if (reset) {
    ctx.list = filtered();
    ctx.shown = 0;
    $('trace-list').replaceChildren();
  }
  const slice = ctx.list.slice(ctx.shown, ctx.shown + PAGE);
  $('trace-list').append(...slice.map(taskRow));
  ctx.shown += slice.length;
  $('trace-count').textContent = `${ctx.list.length} of ${ctx.run.outcomes.length} tasks match; showing ${ctx.shown}`;
  $('trace-more').hidden = ctx.shown >= ctx.list.length;
}

function fillSelect(id, values) {
  const sel = $(id);
  const keep = sel.value;
  sel.replaceChildren(el('option', { text: 'all', attrs: { value: '' } }), ...values.map((v) => el('option', { text: v, attrs: { value: v } })));
  if (values.includes(keep)) sel.value = keep;
}

let wired = false;

/** Shows `run` ({outcomes, scoreLines?}) with session metadata `sessions` (by line). */
export function showTraces(run, sessions) {
  ctx = { run, sessions, parsed: new Map(), list: [], shown: 0 };
  const uniq = (f) => [...new Set(run.outcomes.map(f).filter(Boolean))].sort();
  fillSelect('f-type', uniq((o) => o.task_type));
  fillSelect('f-subtype', uniq((o) => o.subtype || 'First turn'));
  fillSelect('f-error', uniq((o) => o.error));
  $('trace-empty').hidden = Boolean(run.scoreLines && run.scoreLines.size);
  if (!wired) {
    wired = true;
    for (const id of ['f-failed', 'f-type', 'f-subtype', 'f-error']) $(id).addEventListener('change', () => ctx && renderPage(true));
    $('trace-more').addEventListener('click', () => ctx && renderPage(false));
  }
  renderPage(true);
}
