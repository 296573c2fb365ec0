//! Tasks: one task built with retries and a look-ahead, its state snapshot and undo, the
//! tool, clarification and chat tasks, and the session's tool list and environment line.

use std::collections::BTreeSet;

use crate::generate::calendar::{iso, WEEKDAYS};
use crate::generate::pack::{Askable, Chat, Op, Pack, SlotType};
use crate::generate::plan::TaskPlan;
use crate::generate::spec::subtype_name;
use crate::generate::value::Val;
use crate::json::{Map, Value};
use crate::outcome::{TaskType, TurnSubtype, ASK_NAME};

use super::{
    capitalize, fill, node, retry, Bind, Builder, BuiltTask, Fail, Link, Res, State, TaskParts,
    Turn, TASK_ATTEMPTS,
};

impl<'a> Builder<'a> {
    /// Builds task `p`.
    pub fn task(&mut self, p: usize) -> Res<BuiltTask> {
        let mut why = String::new();
        for _ in 0..TASK_ATTEMPTS {
            let snap = self.snapshot();
            match self.task_once(p) {
                Ok(t) if self.next_can_refer_back(p) => return Ok(t),
                Ok(_) => why = "the next task could not refer back".into(),
                Err(Fail::Retry(w)) => why = w,
                Err(e) => return Err(e),
            }
            self.restore(snap);
        }
        Err(Fail::Retry(why))
    }

    fn snapshot(&self) -> State {
        State {
            entities: self.entities.len(),
            marks: self.entities.iter().map(|e| (e.last, e.by_user)).collect(),
            turns: self.turns.len(),
            used: self.used.clone(),
            called: self.called.len(),
            reserved: self.reserved.clone(),
            gone: self.gone.clone(),
        }
    }

    /// Undoes a task: entities and turns are only ever appended, and existing entities
    /// only change what turn last stated them.
    fn restore(&mut self, s: State) {
        self.entities.truncate(s.entities);
        for (e, (last, by_user)) in self.entities.iter_mut().zip(s.marks) {
            e.last = last;
            e.by_user = by_user;
        }
        self.turns.truncate(s.turns);
        self.used = s.used;
        self.called.truncate(s.called);
        self.reserved = s.reserved;
        self.gone = s.gone;
        self.said.clear();
    }

    /// Whether the task after `p`, if it refers back to a recent turn, has something to
    /// refer to (a cheap look-ahead that saves redrawing the whole session).
    fn next_can_refer_back(&mut self, p: usize) -> bool {
        let Some(next) = self.plan.tasks.get(p + 1).cloned() else {
            return true;
        };
        let Some(st) = next.subtype else {
            return true;
        };
        if st == TurnSubtype::LongRangeDependency {
            return true;
        }
        let turn = self.plan.message_turn(p + 1);
        let kinds: Vec<&str> = self.kinds_for(&next).into_iter().collect();
        let saved = self.rng.clone();
        let ok = kinds
            .iter()
            .any(|k| !self.links(k, st, None, turn).is_empty());
        self.rng = saved;
        ok
    }

    fn task_once(&mut self, p: usize) -> Res<BuiltTask> {
        self.blocked_kind = None;
        let tp = self
            .plan
            .tasks
            .get(p)
            .cloned()
            .ok_or_else(|| self.bad("no such task".into()))?;
        let turn = self.plan.message_turn(p);
        self.current = p;
        self.reserve(p)?;
        self.said.clear();
        let opener = self.opener(p);
        let TaskParts {
            message,
            nodes,
            replies,
            turns,
            link,
            ops,
            asked,
        } = match tp.task_type {
            TaskType::Chat => self.chat_task(&tp, turn, &opener)?,
            TaskType::Clarify => self.clarify_task(&tp, turn, &opener)?,
            _ => self.tool_task(&tp, turn, &opener)?,
        };
        // The turns of this task: update what each entity's last stated turn is.
        for (k, t) in turns.iter().enumerate() {
            let at = turn + k;
            for e in &mut self.entities {
                if !e.key.is_empty() && t.content.contains(&e.key) {
                    e.last = Some(at);
                    e.by_user = t.user.contains(&e.key);
                }
            }
        }
        self.turns.extend(turns);
        for e in &self.entities {
            if e.last.is_some() {
                self.used.insert((e.kind.clone(), e.key.clone()));
            }
        }
        let mut meta = Map::new();
        meta.insert(
            "ops",
            Value::Array(ops.into_iter().map(Value::Str).collect()),
        );
        if let Some(l) = &link {
            let e = self.entities.get(l.entity).cloned();
            let mut m = Map::new();
            m.insert(
                "subtype",
                Value::str(tp.subtype.map(subtype_name).unwrap_or("")),
            );
            m.insert(
                "kind",
                Value::str(e.as_ref().map(|e| e.kind.as_str()).unwrap_or("")),
            );
            m.insert(
                "key",
                Value::str(e.as_ref().map(|e| e.key.as_str()).unwrap_or("")),
            );
            m.insert("turn", Value::int(turn as i64));
            m.insert("source_turn", Value::int(l.source as i64));
            m.insert("distance", Value::int(l.distance as i64));
            meta.insert("link", Value::Object(m));
        }
        if !asked.is_empty() {
            meta.insert("asked", Value::Array(asked));
        }
        let said: Vec<Value> = self
            .said
            .iter()
            .map(|s| {
                let mut m = Map::new();
                m.insert("slot", Value::str(&s.slot));
                m.insert("class", Value::str(s.class));
                m.insert(
                    "style",
                    Value::str(match s.transformed {
                        Some(true) => "transformed",
                        _ => "literal",
                    }),
                );
                m.insert("text", Value::str(&s.text));
                m.insert("value", Value::str(&s.value));
                Value::Object(m)
            })
            .collect();
        if !said.is_empty() {
            meta.insert("said", Value::Array(said));
        }
        Ok(BuiltTask {
            message,
            nodes,
            task_type: tp.task_type,
            subtype: tp.subtype,
            replies,
            meta: Value::Object(meta),
        })
    }

    fn tool_task(&mut self, tp: &TaskPlan, turn: usize, opener: &str) -> Res<TaskParts> {
        let (mut gnodes, link, _) = self.graph(tp, turn)?;
        let mut frags = Vec::new();
        for g in &mut gnodes {
            let mut inst = g.inst.clone();
            frags.push(self.fragment(&mut inst)?);
            g.inst = inst;
        }
        let x = self.request_text(tp.task_type, tp.shape, &frags);
        let message = format!("{opener}{}{}", self.frame(&x), self.tail());
        let mut nodes = Vec::new();
        let mut content = message.clone();
        let mut tells = Vec::new();
        let mut ops = Vec::new();
        let dependants: BTreeSet<usize> =
            gnodes.iter().flat_map(|g| g.deps.iter().copied()).collect();
        for g in &gnodes {
            self.mark_gone(&g.inst);
        }
        for (i, g) in gnodes.iter().enumerate() {
            let (n, c) = self.call_node(i, &g.inst, &g.deps)?;
            nodes.push(n);
            content.push(' ');
            content.push_str(&c);
            tells.push(self.tell(&g.inst)?);
            if let Some(op) = g.inst.op {
                ops.push(op.id.clone());
                if !self.called.contains(&op.tool) {
                    self.called.push(op.tool.clone());
                }
            }
        }
        for i in 0..gnodes.len() {
            let Some(inst) = gnodes
                .get(i)
                .filter(|g| g.produced.is_none())
                .map(|g| g.inst.clone())
            else {
                continue;
            };
            if let Some(p) = self.produce(&inst)? {
                if let Some(g) = gnodes.get_mut(i) {
                    g.produced = Some(p);
                }
            }
        }
        let answer = self.answer(&tells);
        content.push(' ');
        content.push_str(&answer);
        let sinks: Vec<usize> = (0..gnodes.len())
            .filter(|i| !dependants.contains(i))
            .collect();
        nodes.push(Self::prepare_node(gnodes.len(), &answer, false, sinks));
        let turns = vec![Turn {
            user: message.clone(),
            content,
        }];
        Ok(TaskParts {
            message,
            nodes,
            replies: Vec::new(),
            turns,
            link,
            ops,
            asked: Vec::new(),
        })
    }

    fn askable_choice(
        &mut self,
        op: &'a Op,
        tp: &TaskPlan,
        linked: Option<&str>,
    ) -> Option<Vec<&'a Askable>> {
        let r = usize::from(tp.rounds);
        let candidates: Vec<&'a Askable> = op
            .askable
            .iter()
            .filter(|a| Some(a.slot.as_str()) != linked)
            .filter(|a| {
                !op.slot(&a.slot)
                    .is_some_and(|s| matches!(&s.ty, SlotType::Kind(k) if !self.user_kind(k)))
            })
            .collect();
        let firsts: Vec<&'a Askable> = candidates
            .iter()
            .copied()
            .filter(|a| tp.missing.is_none_or(|m| a.class == m))
            .collect();
        let first = *self.rng.pick(&firsts)?;
        let mut out = vec![first];
        if r == 2 {
            let rest: Vec<&'a Askable> = candidates
                .iter()
                .copied()
                .filter(|a| a.slot != first.slot)
                .collect();
            out.push(*self.rng.pick(&rest)?);
        }
        // Some text must leave every asked slot (and a left-out linked slot) unsaid.
        Some(out)
    }

    fn clarify_task(&mut self, tp: &TaskPlan, turn: usize, opener: &str) -> Res<TaskParts> {
        let anchors = self.anchors(tp, turn, 0);
        for (op, link) in anchors.into_iter().take(24) {
            let linked = link.as_ref().map(|(s, _)| s.as_str());
            let Some(asks) = self.askable_choice(op, tp, linked) else {
                continue;
            };
            let snapshot = self.entities.len();
            let mut used = BTreeSet::new();
            let mut inst = match self.anchor_inst(op, &link, Vec::new(), &mut used) {
                Ok(i) => i,
                Err(Fail::Retry(_)) => {
                    self.entities.truncate(snapshot);
                    continue;
                }
                Err(e) => return Err(e),
            };
            for a in &asks {
                inst.binds.insert(a.slot.clone(), Bind::Asked);
            }
            let frag = match self.fragment(&mut inst) {
                Ok(f) => f,
                Err(Fail::Retry(_)) => {
                    self.entities.truncate(snapshot);
                    self.said.clear();
                    continue;
                }
                Err(e) => return Err(e),
            };
            let message = format!("{opener}{}{}", self.frame(&frag), self.tail());
            let mut nodes = Vec::new();
            let mut replies = Vec::new();
            let mut turns = Vec::new();
            let mut user = message.clone();
            let mut asked_meta = Vec::new();
            for (k, a) in asks.iter().enumerate() {
                let q = self
                    .rng
                    .pick(&a.questions)
                    .cloned()
                    .ok_or_else(|| self.bad("no question".into()))?;
                let question = self.text(&q, &inst.vals)?;
                turns.push(Turn {
                    user: user.clone(),
                    content: format!("{user} {question}"),
                });
                let v = self.verbal(&mut inst, &a.slot)?;
                let reply = fill(&self.pick_str(&self.common.replies.clone()), &[("v", &v)]);
                let mut args = Map::new();
                args.insert("tool_name", Value::str(&op.tool));
                args.insert(
                    "missing_required_parameters",
                    Value::Array(a.params.iter().map(Value::str).collect()),
                );
                let deps: Vec<usize> = if k == 0 { vec![] } else { vec![k - 1] };
                nodes.push(node(
                    k,
                    ASK_NAME,
                    Value::Object(args),
                    Value::str(&question),
                    &deps,
                    Some(&reply),
                ));
                let mut m = Map::new();
                m.insert("slot", Value::str(&a.slot));
                m.insert("class", Value::str(a.class.name()));
                m.insert(
                    "params",
                    Value::Array(a.params.iter().map(Value::str).collect()),
                );
                asked_meta.push(Value::Object(m));
                replies.push(reply.clone());
                user = reply;
            }
            let r = asks.len();
            self.mark_gone(&inst);
            let (call, c) = self.call_node(r, &inst, &[r - 1])?;
            nodes.push(call);
            if !self.called.contains(&op.tool) {
                self.called.push(op.tool.clone());
            }
            let tell = self.tell(&inst)?;
            let answer = self.answer(&[tell]);
            nodes.push(Self::prepare_node(r + 1, &answer, false, vec![r]));
            self.produce(&inst)?;
            turns.push(Turn {
                user: user.clone(),
                content: format!("{user} {c} {answer}"),
            });
            return Ok(TaskParts {
                message,
                nodes,
                replies,
                turns,
                link: link.map(|(_, l)| l),
                ops: vec![op.id.clone()],
                asked: asked_meta,
            });
        }
        retry("no operation can be clarified here")
    }

    fn chat_task(&mut self, tp: &TaskPlan, turn: usize, opener: &str) -> Res<TaskParts> {
        let pack: &'a Pack = self.pack;
        let mut options: Vec<(&'a Chat, Option<Link>)> = Vec::new();
        for c in &pack.chats {
            let kind = c.ref_kind();
            match tp.subtype {
                None => {
                    if self.user_kind(kind) {
                        options.push((c, None));
                    }
                }
                Some(st) => {
                    for l in self.links(kind, st, tp.distance, turn) {
                        options.push((c, Some(l)));
                    }
                }
            }
        }
        self.rng.shuffle(&mut options);
        if tp.subtype == Some(TurnSubtype::LongRangeDependency) && tp.distance.is_none() {
            options.sort_by_key(|(_, l)| l.as_ref().map(|l| l.distance).unwrap_or(0));
        }
        for (c, link) in options.into_iter().take(24) {
            let snapshot = self.entities.len();
            let mut used = BTreeSet::new();
            let bound = match &link {
                Some(l) => vec![(
                    "ref".to_owned(),
                    Val::Entity(l.entity),
                    Bind::Linked(l.phrase.clone()),
                )],
                None => Vec::new(),
            };
            let attempt = self
                .instance(None, Some(c), bound, &mut used)
                .and_then(|mut inst| {
                    let q = self.fragment(&mut inst)?;
                    Ok((inst, q))
                });
            let (inst, q) = match attempt {
                Ok(x) => x,
                Err(Fail::Retry(_)) => {
                    self.entities.truncate(snapshot);
                    self.said.clear();
                    continue;
                }
                Err(e) => return Err(e),
            };
            let message = format!("{opener}{}{}", capitalize(&q), self.tail());
            let a = self
                .rng
                .pick(&c.answer)
                .cloned()
                .ok_or_else(|| self.bad("no answer".into()))?;
            let answer = self.text(&a, &inst.vals)?;
            let nodes = vec![Self::prepare_node(0, &answer, true, vec![])];
            let turns = vec![Turn {
                user: message.clone(),
                content: format!("{message} {answer}"),
            }];
            return Ok(TaskParts {
                message,
                nodes,
                replies: Vec::new(),
                turns,
                link,
                ops: vec![c.id.clone()],
                asked: Vec::new(),
            });
        }
        retry("no chat fits here")
    }

    /// The session's tools: every called tool and the planned number of distractors
    /// (look-alikes of called tools first, then other look-alikes, then unused tools of
    /// the pack), in a drawn order.
    pub fn tools(&mut self) -> Res<(Vec<Value>, usize)> {
        let mut list: Vec<Value> = Vec::new();
        for t in &self.called {
            let v = self
                .pack
                .tools
                .get(t)
                .cloned()
                .ok_or_else(|| self.bad(format!("unknown tool {t}")))?;
            list.push(v);
        }
        let mut near: Vec<Value> = Vec::new();
        let mut far: Vec<Value> = Vec::new();
        for l in &self.pack.lookalikes {
            if self.called.contains(&l.like) {
                near.push(l.tool.clone());
            } else {
                far.push(l.tool.clone());
            }
        }
        let mut unused: Vec<Value> = self
            .pack
            .tools
            .iter()
            .filter(|(n, _)| !self.called.contains(n))
            .map(|(_, v)| v.clone())
            .collect();
        self.rng.shuffle(&mut near);
        self.rng.shuffle(&mut far);
        self.rng.shuffle(&mut unused);
        let want = usize::from(self.plan.distractors);
        let pool: Vec<Value> = near
            .into_iter()
            .chain(far)
            .chain(unused)
            .take(want)
            .collect();
        if pool.len() < want {
            return retry("not enough distractor tools");
        }
        list.extend(pool);
        self.rng.shuffle(&mut list);
        Ok((list, want))
    }

    /// Weekday name of the session date (for `env_info`).
    pub fn env_info(&self) -> String {
        let (h, m) = (self.plan.minute / 60, self.plan.minute % 60);
        format!(
            "{} {h:02}:{m:02}:00 {}",
            iso(self.plan.today),
            WEEKDAYS
                .get(crate::generate::calendar::weekday(self.plan.today))
                .copied()
                .unwrap_or("")
        )
    }
}
