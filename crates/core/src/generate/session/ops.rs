//! Operations by role: which operations consume a kind, start a task or chain from another,
//! and the tool graphs built from them (single, parallel, sequential, mixed).

use std::collections::{BTreeMap, BTreeSet};

use crate::generate::pack::{Op, Pack};
use crate::generate::plan::TaskPlan;
use crate::generate::spec::MixedShape;
use crate::generate::value::Val;
use crate::json::{dumps, Escape};
use crate::outcome::{TaskType, TurnSubtype};

use super::{fill, retry, said_anywhere, Anchor, Bind, Builder, Fail, GNode, Inst, Link, Res};

impl<'a> Builder<'a> {
    pub(super) fn user_kind(&self, kind: &str) -> bool {
        self.pack.kind(kind).is_some_and(|k| !k.values.is_empty())
    }

    /// Whether every entity slot of `op` except `except` can be drawn fresh.
    pub(super) fn fresh_ok(&self, op: &Op, except: &[&str]) -> bool {
        op.entity_slots()
            .iter()
            .all(|(s, k)| except.contains(s) || self.user_kind(k))
    }

    /// Consumers of `kind` within one request: `(op, slot)` pairs where every other entity
    /// slot is fresh-drawable (removing calls only ever take entities from the session).
    fn consumers(&self, kind: &str) -> Vec<(&'a Op, &'a str)> {
        let pack: &'a Pack = self.pack;
        pack.ops
            .iter()
            .filter(|op| !op.removes)
            .filter_map(|op| {
                let slot = op.entity_slots().into_iter().find(|(_, k)| *k == kind)?.0;
                self.fresh_ok(op, &[slot]).then_some((op, slot))
            })
            .collect()
    }

    /// Length of the longest chain of consumers (each producing, except possibly the
    /// last) that can follow an output of `kind`, capped at `cap`.
    fn reach(&self, kind: &str, cap: usize) -> usize {
        if cap == 0 {
            return 0;
        }
        if let Some(r) = self.reach_cache.borrow().get(&(kind.to_owned(), cap)) {
            return *r;
        }
        let r = self.reach_uncached(kind, cap);
        self.reach_cache
            .borrow_mut()
            .insert((kind.to_owned(), cap), r);
        r
    }

    fn reach_uncached(&self, kind: &str, cap: usize) -> usize {
        let mut best = 0;
        for (op, _) in self.consumers(kind) {
            let further = match op.out_kind() {
                Some(k) if cap > 1 => self.reach(k, cap - 1),
                _ => 0,
            };
            best = best.max(1 + further);
            if best >= cap {
                break;
            }
        }
        best
    }

    fn chain_phrase(&mut self, kind: &str) -> String {
        let list = self
            .pack
            .kind(kind)
            .map(|k| k.chain.clone())
            .unwrap_or_default();
        self.pick_str(&list)
    }

    /// A consumer node bound to the output of `producers` (entity indexes, one per
    /// bound slot, matched by kind in slot order).
    fn consumer<'p>(
        &mut self,
        op: &'p Op,
        slots: &[(&str, usize)],
        ordinal: bool,
        task_used: &mut BTreeSet<(String, String)>,
    ) -> Res<Inst<'p>> {
        let mut bound = Vec::new();
        for (n, (slot, e)) in slots.iter().enumerate() {
            let kind = self
                .entities
                .get(*e)
                .map(|x| x.kind.clone())
                .unwrap_or_default();
            let phrase = if ordinal {
                let p = self.pick_str(&self.common.ordinal_ref.clone());
                fill(
                    &p,
                    &[("ord", &self.ordinal(n)), ("noun", &self.noun(&kind))],
                )
            } else {
                self.chain_phrase(&kind)
            };
            bound.push(((*slot).to_owned(), Val::Entity(*e), Bind::Chained(phrase)));
        }
        self.instance(Some(op), None, bound, task_used)
    }

    /// Anchor candidates: `(op, linked slot, link)`; for the first task, every op whose
    /// entity slots can all be drawn fresh.
    pub(super) fn anchors(&mut self, tp: &TaskPlan, turn: usize, need: usize) -> Vec<Anchor<'a>> {
        let pack: &'a Pack = self.pack;
        let mut out = Vec::new();
        let mut by_kind: BTreeMap<&str, Vec<Link>> = BTreeMap::new();
        for op in &pack.ops {
            if need > 0 && op.out_kind().is_none_or(|k| self.reach(k, need) < need) {
                continue;
            }
            match tp.subtype {
                None => {
                    if self.fresh_ok(op, &[]) {
                        out.push((op, None));
                    }
                }
                Some(st) => {
                    for (slot, kind) in op.entity_slots() {
                        if !self.fresh_ok(op, &[slot]) || !said_anywhere(op, slot) {
                            continue;
                        }
                        if !by_kind.contains_key(kind) {
                            let links = self.links(kind, st, tp.distance, turn);
                            by_kind.insert(kind, links);
                        }
                        for l in by_kind.get(kind).into_iter().flatten() {
                            out.push((op, Some((slot.to_owned(), l.clone()))));
                        }
                    }
                }
            }
        }
        if tp.task_type == TaskType::Clarify {
            out.retain(|(op, l)| self.clarify_ok(op, l.as_ref().map(|(s, _)| s.as_str()), tp));
        }
        self.rng.shuffle(&mut out);
        // Without a fixed distance a long-range task refers to the nearest source that fits.
        if tp.subtype == Some(TurnSubtype::LongRangeDependency) && tp.distance.is_none() {
            out.sort_by_key(|(_, l)| l.as_ref().map(|(_, l)| l.distance).unwrap_or(0));
        }
        out
    }

    pub(super) fn anchor_inst<'p>(
        &mut self,
        op: &'p Op,
        link: &Option<(String, Link)>,
        extra: Vec<(String, Val, Bind)>,
        task_used: &mut BTreeSet<(String, String)>,
    ) -> Res<Inst<'p>> {
        let mut bound = extra;
        if let Some((slot, l)) = link {
            bound.push((
                slot.clone(),
                Val::Entity(l.entity),
                Bind::Linked(l.phrase.clone()),
            ));
        }
        self.instance(Some(op), None, bound, task_used)
    }

    /// Fresh-drawable ops (for parallel members and side calls).
    fn free_ops(&self, need_out: bool) -> Vec<&'a Op> {
        let pack: &'a Pack = self.pack;
        pack.ops
            .iter()
            .filter(|op| self.fresh_ok(op, &[]) && (!need_out || op.out.is_some()))
            .filter(|op| self.unblocked(op, None))
            .collect()
    }

    /// Whether `op` draws no fresh value of the kind the task's link blocks (`bound`: a
    /// slot that is bound, not drawn).
    fn unblocked(&self, op: &Op, bound: Option<&str>) -> bool {
        match &self.blocked_kind {
            None => true,
            Some(b) => op
                .entity_slots()
                .iter()
                .all(|(s, k)| Some(*s) == bound || *k != b.as_str()),
        }
    }

    /// Tries to build the tool graph of a non-Clarify tool task.
    pub(super) fn graph(
        &mut self,
        tp: &TaskPlan,
        turn: usize,
    ) -> Res<(Vec<GNode<'a>>, Option<Link>, String)> {
        let kind = match tp.task_type {
            TaskType::SingleTool => 0,
            TaskType::ParallelMultiTool => 1,
            TaskType::SequentialMultiTool => 2,
            _ => 3,
        };
        let need = match kind {
            2 => usize::from(tp.depth).saturating_sub(1),
            3 => 1,
            _ => 0,
        };
        let mut anchors: Vec<(Anchor<'a>, bool)> = self
            .anchors(tp, turn, need)
            .into_iter()
            .map(|a| (a, false))
            .collect();
        // In a chain-side or two-chain task the link may sit on the other root.
        let second_need = match (kind, tp.shape) {
            (3, MixedShape::ChainSide) => Some(0),
            (3, MixedShape::TwoChains) => Some(1),
            _ => None,
        };
        if let (Some(n), Some(_)) = (second_need, tp.subtype) {
            let more = self.anchors(tp, turn, n);
            anchors.extend(more.into_iter().map(|a| (a, true)));
            self.rng.shuffle(&mut anchors);
        }
        for ((op, link), second) in anchors.into_iter().take(32) {
            self.blocked_kind = None;
            let snapshot = self.entities.len();
            let attempt = match kind {
                0 => self.single(op, &link).map(|n| (n, String::new())),
                1 => self.parallel(op, &link, usize::from(tp.width)),
                2 => self.sequential(op, &link, usize::from(tp.depth)),
                _ => self.mixed(op, &link, tp.shape, second),
            };
            match attempt {
                Ok((nodes, text)) => return Ok((nodes, link.map(|(_, l)| l), text)),
                Err(Fail::Fatal(e)) => return Err(Fail::Fatal(e)),
                Err(Fail::Retry(_)) => {
                    self.entities.truncate(snapshot);
                    self.said.clear();
                }
            }
        }
        retry("no operation fits this task")
    }

    fn node<'p>(inst: Inst<'p>, deps: Vec<usize>) -> GNode<'p> {
        GNode {
            inst,
            deps,
            produced: None,
        }
    }

    fn single(&mut self, op: &'a Op, link: &Option<(String, Link)>) -> Res<Vec<GNode<'a>>> {
        let mut used = BTreeSet::new();
        let inst = self.anchor_inst(op, link, Vec::new(), &mut used)?;
        Ok(vec![Self::node(inst, vec![])])
    }

    fn args_of(&self, inst: &Inst<'_>) -> Res<String> {
        match inst.op {
            Some(op) => Ok(format!(
                "{}{}",
                op.tool,
                dumps(&self.json(&op.args, &inst.vals)?, Escape::Utf8)
            )),
            None => Ok(String::new()),
        }
    }

    fn parallel(
        &mut self,
        op: &'a Op,
        link: &Option<(String, Link)>,
        width: usize,
    ) -> Res<(Vec<GNode<'a>>, String)> {
        let mut used = BTreeSet::new();
        let first = self.anchor_inst(op, link, Vec::new(), &mut used)?;
        let mut seen = BTreeSet::new();
        seen.insert(self.args_of(&first)?);
        let mut nodes = vec![Self::node(first, vec![])];
        let mut free = self.free_ops(false);
        if free.is_empty() {
            return retry("no free operation");
        }
        self.rng.shuffle(&mut free);
        let mut tries = 0;
        while nodes.len() < width {
            tries += 1;
            if tries > width * 6 {
                return retry("not enough distinct parallel calls");
            }
            // Different operations first, then repeats with other values.
            let Some(&o) = free.get((tries - 1) % free.len()) else {
                return retry("no free operation");
            };
            let snapshot = self.entities.len();
            let inst = match self.instance(Some(o), None, Vec::new(), &mut used) {
                Ok(i) => i,
                Err(Fail::Retry(_)) => {
                    self.entities.truncate(snapshot);
                    continue;
                }
                Err(e) => return Err(e),
            };
            if seen.insert(self.args_of(&inst)?) {
                nodes.push(Self::node(inst, vec![]));
            } else {
                self.entities.truncate(snapshot);
            }
        }
        Ok((nodes, String::new()))
    }

    fn ensure_produced(&mut self, nodes: &mut [GNode<'a>], i: usize) -> Res<usize> {
        let Some(n) = nodes.get(i) else {
            return retry("no node");
        };
        if let Some(p) = n.produced {
            return Ok(p);
        }
        let inst = n.inst.clone();
        let Some(p) = self.produce(&inst)? else {
            return retry("the operation produces nothing");
        };
        if let Some(n) = nodes.get_mut(i) {
            n.produced = Some(p);
        }
        Ok(p)
    }

    fn sequential(
        &mut self,
        op: &'a Op,
        link: &Option<(String, Link)>,
        depth: usize,
    ) -> Res<(Vec<GNode<'a>>, String)> {
        let mut used = BTreeSet::new();
        let first = self.anchor_inst(op, link, Vec::new(), &mut used)?;
        let mut nodes = vec![Self::node(first, vec![])];
        self.extend_chain_exact(&mut nodes, 0, depth - 1, &mut used)?;
        Ok((nodes, String::new()))
    }

    /// Like [`Self::extend_chain`], but every consumer except the last must produce.
    fn extend_chain_exact(
        &mut self,
        nodes: &mut Vec<GNode<'a>>,
        prev: usize,
        more: usize,
        used: &mut BTreeSet<(String, String)>,
    ) -> Res<()> {
        let mut prev = prev;
        for step in 0..more {
            let last = step + 1 == more;
            let produced = self.ensure_produced(nodes, prev)?;
            let kind = self
                .entities
                .get(produced)
                .map(|e| e.kind.clone())
                .unwrap_or_default();
            let mut options = self.consumers(&kind);
            options.retain(|(op, slot)| self.unblocked(op, Some(slot)));
            let left = more - step - 1;
            if !last {
                options
                    .retain(|(op, _)| op.out_kind().is_some_and(|k| self.reach(k, left) >= left));
            }
            self.rng.shuffle(&mut options);
            let Some(&(op, slot)) = options.first() else {
                return retry("chain cannot continue");
            };
            let inst = self.consumer(op, &[(slot, produced)], false, used)?;
            nodes.push(Self::node(inst, vec![prev]));
            prev = nodes.len() - 1;
        }
        Ok(())
    }

    fn side(
        &mut self,
        nodes: &[GNode<'a>],
        need_out: bool,
        used: &mut BTreeSet<(String, String)>,
    ) -> Res<GNode<'a>> {
        let mut free = self.free_ops(need_out);
        if need_out {
            free.retain(|o| o.out_kind().is_some_and(|k| self.reach(k, 1) >= 1));
        }
        let mut seen = BTreeSet::new();
        for n in nodes {
            seen.insert(self.args_of(&n.inst)?);
        }
        for _ in 0..12 {
            let Some(&o) = self.rng.pick(&free) else {
                return retry("no free operation");
            };
            match self.instance(Some(o), None, Vec::new(), used) {
                Ok(inst) => {
                    if !seen.contains(&self.args_of(&inst)?) {
                        return Ok(Self::node(inst, vec![]));
                    }
                }
                Err(Fail::Retry(_)) => continue,
                Err(e) => return Err(e),
            }
        }
        retry("no distinct side call")
    }

    /// A Mixed task. With `second`, the given (linked) operation is the independent call
    /// of a chain-side shape or the head of the second chain, and the first chain starts
    /// with a fresh operation.
    fn mixed(
        &mut self,
        op: &'a Op,
        link: &Option<(String, Link)>,
        shape: MixedShape,
        second: bool,
    ) -> Res<(Vec<GNode<'a>>, String)> {
        let mut used = BTreeSet::new();
        let a = self.anchor_inst(op, link, Vec::new(), &mut used)?;
        let mut nodes = vec![Self::node(a, vec![])];
        if second {
            // The fresh chain is said before the reference, so it may not name a fresh
            // value of the linked kind: "that category" must not be read as a category
            // named earlier in the same message.
            self.blocked_kind = link
                .as_ref()
                .and_then(|(_, l)| self.entities.get(l.entity))
                .map(|e| e.kind.clone());
            let head = self.side(&nodes, true, &mut used)?;
            nodes.insert(0, head);
        }
        match shape {
            MixedShape::ChainSide => {
                // [A, S, B(A)]
                if !second {
                    let s = self.side(&nodes, false, &mut used)?;
                    nodes.push(s);
                }
                self.extend_chain_exact(&mut nodes, 0, 1, &mut used)?;
                self.fix_deps(&mut nodes, 2, vec![0]);
            }
            MixedShape::FanOut => {
                // [A, B(A), C(A)]
                let produced = self.ensure_produced(&mut nodes, 0)?;
                let kind = self
                    .entities
                    .get(produced)
                    .map(|e| e.kind.clone())
                    .unwrap_or_default();
                let mut options = self.consumers(&kind);
                options.retain(|(op, slot)| {
                    !op.removes && !op.consumes && self.unblocked(op, Some(slot))
                });
                self.rng.shuffle(&mut options);
                let mut seen = BTreeSet::new();
                for (o, slot) in options.iter().cycle().take(options.len() * 3) {
                    if nodes.len() == 3 {
                        break;
                    }
                    match self.consumer(o, &[(slot, produced)], false, &mut used) {
                        Ok(inst) => {
                            if seen.insert(self.args_of(&inst)?) {
                                nodes.push(Self::node(inst, vec![0]));
                            }
                        }
                        Err(Fail::Retry(_)) => continue,
                        Err(e) => return Err(e),
                    }
                }
                if nodes.len() != 3 {
                    return retry("no two consumers");
                }
            }
            MixedShape::FanIn => {
                // [A, B, C(A, B)]
                let pa = self.ensure_produced(&mut nodes, 0)?;
                let ka = self
                    .entities
                    .get(pa)
                    .map(|e| e.kind.clone())
                    .unwrap_or_default();
                let pack: &'a Pack = self.pack;
                let mut options: Vec<(&'a Op, String, String, String)> = Vec::new();
                for c in &pack.ops {
                    let es = c.entity_slots();
                    for (i, (s1, k1)) in es.iter().enumerate() {
                        for (j, (s2, k2)) in es.iter().enumerate() {
                            if i == j || *k1 != ka {
                                continue;
                            }
                            if self.fresh_ok(c, &[s1, s2]) {
                                options.push((
                                    c,
                                    (*s1).to_owned(),
                                    (*s2).to_owned(),
                                    (*k2).to_owned(),
                                ));
                            }
                        }
                    }
                }
                self.rng.shuffle(&mut options);
                let mut built = false;
                for (c, s1, s2, k2) in options {
                    let producers: Vec<&'a Op> = self
                        .free_ops(true)
                        .into_iter()
                        .filter(|o| o.out_kind() == Some(k2.as_str()))
                        .collect();
                    let Some(&b_op) = self.rng.pick(&producers) else {
                        continue;
                    };
                    let b = match self.instance(Some(b_op), None, Vec::new(), &mut used) {
                        Ok(b) => b,
                        Err(Fail::Retry(_)) => continue,
                        Err(e) => return Err(e),
                    };
                    let first = match nodes.first() {
                        Some(n) => self.args_of(&n.inst)?,
                        None => String::new(),
                    };
                    if self.args_of(&b)? == first {
                        continue;
                    }
                    nodes.push(Self::node(b, vec![]));
                    let pb = self.ensure_produced(&mut nodes, 1)?;
                    let same = ka == k2;
                    match self.consumer(c, &[(&s1, pa), (&s2, pb)], same, &mut used) {
                        Ok(inst) => {
                            nodes.push(Self::node(inst, vec![0, 1]));
                            built = true;
                            break;
                        }
                        Err(Fail::Retry(_)) => {
                            nodes.truncate(1);
                            continue;
                        }
                        Err(e) => return Err(e),
                    }
                }
                if !built {
                    return retry("no fan-in");
                }
            }
            MixedShape::TwoChains => {
                // [A, C, B(A), D(C)]
                if !second {
                    let c = self.side(&nodes, true, &mut used)?;
                    nodes.push(c);
                }
                self.extend_chain_exact(&mut nodes, 0, 1, &mut used)?;
                self.extend_chain_exact(&mut nodes, 1, 1, &mut used)?;
                self.fix_deps(&mut nodes, 2, vec![0]);
                self.fix_deps(&mut nodes, 3, vec![1]);
            }
        }
        Ok((nodes, String::new()))
    }

    /// Records the entities a removing call takes as gone.
    pub(super) fn mark_gone(&mut self, inst: &Inst<'_>) {
        if !inst.op.is_some_and(|o| o.removes || o.consumes) {
            return;
        }
        for (slot, b) in &inst.binds {
            if matches!(b, Bind::Linked(_) | Bind::Chained(_)) {
                if let Some(Val::Entity(e)) = inst.vals.get(slot) {
                    self.gone.insert(*e);
                }
            }
        }
    }

    fn fix_deps(&self, nodes: &mut [GNode<'a>], i: usize, deps: Vec<usize>) {
        if let Some(n) = nodes.get_mut(i) {
            n.deps = deps;
        }
    }
}
