//! Links to the session's memory: how an entity is named again (ordinals, nouns, rank),
//! which entities a task may refer back to as its hidden-intent subtype asks, and the
//! entities kept back for a later long-range task.

use std::collections::BTreeSet;

use crate::generate::pack::{Askable, Chat, Op, Pack, SlotType};
use crate::generate::plan::TaskPlan;
use crate::outcome::{TaskType, TurnSubtype};

use super::{fill, retry, said_anywhere, Builder, Entity, Link, Res};

impl<'a> Builder<'a> {
    pub(super) fn ordinal(&self, n: usize) -> String {
        self.common.ordinals.get(n).cloned().unwrap_or_default()
    }

    pub(super) fn noun(&self, kind: &str) -> String {
        self.pack
            .kind(kind)
            .map(|k| k.noun.clone())
            .unwrap_or_default()
    }

    /// Rank of entity `e` among the entities of its kind last stated in the same turn,
    /// by position in that turn, and how many there are.
    fn rank(&self, e: usize) -> (usize, usize) {
        let Some(ent) = self.entities.get(e) else {
            return (0, 0);
        };
        let Some(turn) = ent.last.and_then(|t| self.turns.get(t)) else {
            return (0, 0);
        };
        let same: Vec<(usize, &Entity)> = self
            .entities
            .iter()
            .enumerate()
            .filter(|(_, x)| x.kind == ent.kind && x.last == ent.last)
            .collect();
        // Values the user listed are counted in the user's order; otherwise in the order
        // the exchange reported them last (the answer lists results call by call).
        let in_user = same.iter().all(|(_, x)| turn.user.contains(&x.key));
        let mut peers: Vec<(usize, usize)> = same
            .iter()
            .map(|(i, x)| {
                let at = if in_user {
                    turn.user.find(&x.key)
                } else {
                    turn.content.rfind(&x.key)
                };
                (at.unwrap_or(usize::MAX), *i)
            })
            .collect();
        peers.sort();
        let pos = peers.iter().position(|&(_, i)| i == e).unwrap_or(0);
        (pos, peers.len())
    }

    /// Entities of `kind` a task whose message is user turn `turn` can refer to with
    /// `subtype`, and how.
    pub(super) fn links(
        &mut self,
        kind: &str,
        subtype: TurnSubtype,
        distance: Option<u8>,
        turn: usize,
    ) -> Vec<Link> {
        let of_kind: Vec<usize> = (0..self.entities.len())
            .filter(|&i| {
                self.entities
                    .get(i)
                    .is_some_and(|e| e.kind == kind && e.last.is_some_and(|l| l < turn))
                    && self.reserved.get(&i).is_none_or(|&q| q == self.current)
                    && !self.gone.contains(&i)
            })
            .collect();
        let latest = of_kind
            .iter()
            .filter_map(|&i| self.entities.get(i).and_then(|e| e.last))
            .max();
        let mut out = Vec::new();
        for &i in &of_kind {
            let Some(last) = self.entities.get(i).and_then(|e| e.last) else {
                continue;
            };
            let by_user = self.entities.get(i).is_some_and(|e| e.by_user);
            let d = turn - last;
            let (pos, peers) = self.rank(i);
            let noun = self.noun(kind);
            let phrase = match subtype {
                TurnSubtype::CoreferentialReference => {
                    if Some(last) != latest || !(1..=2).contains(&d) {
                        continue;
                    }
                    if peers > 1 {
                        let p = self.pick_str(&self.common.ordinal_ref.clone());
                        Some(fill(&p, &[("ord", &self.ordinal(pos)), ("noun", &noun)]))
                    } else {
                        let list = self
                            .pack
                            .kind(kind)
                            .map(|k| k.coref.clone())
                            .unwrap_or_default();
                        Some(self.pick_str(&list))
                    }
                }
                TurnSubtype::PartialInformation => {
                    if Some(last) != latest || !(1..=2).contains(&d) || peers != 1 {
                        continue;
                    }
                    None
                }
                TurnSubtype::LongRangeDependency => {
                    let ok = match distance {
                        Some(n) => d == usize::from(n),
                        None => d >= 3,
                    };
                    if !ok {
                        continue;
                    }
                    let which = if peers > 1 {
                        format!("{} ", self.ordinal(pos))
                    } else {
                        String::new()
                    };
                    let list = if by_user {
                        self.common.lr_said.clone()
                    } else {
                        self.common.lr_told.clone()
                    };
                    let p = self.pick_str(&list);
                    Some(fill(
                        &p,
                        &[
                            ("which", &which),
                            ("noun", &noun),
                            ("nth", &self.ordinal(last)),
                        ],
                    ))
                }
            };
            out.push(Link {
                entity: i,
                phrase,
                distance: d,
                source: last,
            });
        }
        out
    }

    /// Kinds a task planned as `tp` can refer back to: the reference kinds of the chats,
    /// or the kinds of linkable slots of operations that fit the task (for a
    /// clarification: enough askable slots besides the linked one, the first of the
    /// planned class).
    pub(super) fn kinds_for(&self, tp: &TaskPlan) -> BTreeSet<&'a str> {
        let pack: &'a Pack = self.pack;
        if tp.task_type == TaskType::Chat {
            return pack.chats.iter().map(Chat::ref_kind).collect();
        }
        let mut out = BTreeSet::new();
        for op in &pack.ops {
            for (slot, kind) in op.entity_slots() {
                if !self.fresh_ok(op, &[slot]) || !said_anywhere(op, slot) {
                    continue;
                }
                if tp.task_type == TaskType::Clarify && !self.clarify_ok(op, Some(slot), tp) {
                    continue;
                }
                out.insert(kind);
            }
        }
        out
    }

    /// Whether `op`, linked through `linked`, can be the call of a clarification planned
    /// as `tp`: enough askable slots besides the linked one, the first of the planned class.
    pub(super) fn clarify_ok(&self, op: &Op, linked: Option<&str>, tp: &TaskPlan) -> bool {
        let asks: Vec<&Askable> = op
            .askable
            .iter()
            .filter(|a| Some(a.slot.as_str()) != linked)
            .filter(|a| {
                !op.slot(&a.slot)
                    .is_some_and(|s| matches!(&s.ty, SlotType::Kind(k) if !self.user_kind(k)))
            })
            .collect();
        asks.len() >= usize::from(tp.rounds)
            && asks.iter().any(|a| tp.missing.is_none_or(|m| a.class == m))
    }

    /// Before task `p`: for every later long-range task whose source turns are all built,
    /// keeps one suitable entity back so that the tasks in between do not restate it.
    pub(super) fn reserve(&mut self, p: usize) -> Res<()> {
        let built = self.turns.len();
        for q in p + 1..self.plan.tasks.len() {
            let Some(tq) = self.plan.tasks.get(q).cloned() else {
                continue;
            };
            if tq.subtype != Some(TurnSubtype::LongRangeDependency)
                || self.reserved.values().any(|&x| x == q)
            {
                continue;
            }
            let at = self.plan.message_turn(q);
            let (lo, hi) = match tq.distance {
                Some(d) => {
                    let t = at.saturating_sub(usize::from(d));
                    (t, t)
                }
                None => (0, at.saturating_sub(3)),
            };
            if lo >= built {
                continue;
            }
            let complete = hi < built;
            let hi = hi.min(built.saturating_sub(1));
            let kinds = self.kinds_for(&tq);
            let options: Vec<(usize, usize)> = self
                .entities
                .iter()
                .enumerate()
                .filter(|(i, e)| {
                    !self.reserved.contains_key(i)
                        && kinds.contains(e.kind.as_str())
                        && e.last.is_some_and(|l| (lo..=hi).contains(&l))
                })
                .map(|(i, e)| (e.last.unwrap_or(0), i))
                .collect();
            let best = options.iter().map(|(l, _)| *l).max();
            let nearest: Vec<usize> = options
                .iter()
                .filter(|(l, _)| Some(*l) == best)
                .map(|(_, i)| *i)
                .collect();
            let Some(&e) = self.rng.pick(&nearest) else {
                if complete {
                    return retry("nothing to keep for a long-range reference");
                }
                continue;
            };
            self.reserved.insert(e, q);
        }
        Ok(())
    }
}
