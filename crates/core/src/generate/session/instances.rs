//! Instances: an operation (or chat) with every slot bound or drawn, the request fragment
//! that says it, and the entity a call produces.

use std::collections::{BTreeMap, BTreeSet};

use crate::generate::pack::{Chat, Op};
use crate::generate::template::{Json, Text};
use crate::generate::value::Val;

use super::{retry, Bind, Builder, Inst, Res};

impl<'a> Builder<'a> {
    /// An instance of `op` (or `chat`) with the given bound slots; every other slot is
    /// drawn fresh.
    pub(super) fn instance<'p>(
        &mut self,
        op: Option<&'p Op>,
        chat: Option<&'p Chat>,
        bound: Vec<(String, Val, Bind)>,
        task_used: &mut BTreeSet<(String, String)>,
    ) -> Res<Inst<'p>> {
        let mut inst = Inst {
            op,
            chat,
            vals: BTreeMap::new(),
            binds: BTreeMap::new(),
            verbal: BTreeMap::new(),
        };
        for (s, v, b) in bound {
            if let Val::Entity(e) = &v {
                if let Some(ent) = self.entities.get(*e) {
                    task_used.insert((ent.kind.clone(), ent.key.clone()));
                }
            }
            inst.vals.insert(s.clone(), v);
            inst.binds.insert(s, b);
        }
        for slot in inst.slots() {
            if inst.vals.contains_key(&slot.name) {
                continue;
            }
            let v = self.draw(slot, task_used)?;
            inst.vals.insert(slot.name.clone(), v);
            inst.binds.insert(slot.name.clone(), Bind::Fresh);
        }
        Ok(inst)
    }

    /// Renders the instance's request fragment (or chat question) with a template that
    /// can leave out every slot that must stay unsaid.
    pub(super) fn fragment(&mut self, inst: &mut Inst<'_>) -> Res<String> {
        let unsaid: Vec<String> = inst
            .binds
            .iter()
            .filter(|(_, b)| matches!(b, Bind::Linked(None) | Bind::Asked))
            .map(|(s, _)| s.clone())
            .collect();
        let eligible: Vec<&Text> = inst
            .say()
            .iter()
            .filter(|t| {
                unsaid
                    .iter()
                    .all(|s| t.can_drop(s) || !t.refs().iter().any(|r| &r.slot == s))
            })
            .filter(|t| {
                // Linked and chained entities must be mentioned (as a phrase or left out
                // on purpose), so pick texts that mention every bound slot.
                inst.binds.iter().all(|(s, b)| {
                    matches!(b, Bind::Fresh)
                        || t.refs().iter().any(|r| &r.slot == s && r.field.is_none())
                })
            })
            .collect();
        let Some(t) = self.rng.pick(&eligible).copied() else {
            return retry("no text can leave the right slots unsaid");
        };
        let mut resolved: BTreeMap<String, Option<String>> = BTreeMap::new();
        for r in t.refs() {
            if r.field.is_some() || resolved.contains_key(&r.slot) {
                continue;
            }
            let said = match inst.binds.get(&r.slot).cloned().unwrap_or(Bind::Fresh) {
                Bind::Fresh => Some(self.verbal(inst, &r.slot)?),
                Bind::Linked(p) => p,
                Bind::Chained(p) => Some(p),
                Bind::Asked => None,
            };
            resolved.insert(r.slot.clone(), said);
        }
        let vals = inst.vals.clone();
        let mut fail = None;
        let out = t.render(&mut |r| {
            if r.field.is_none() {
                return Ok(resolved.get(&r.slot).cloned().flatten());
            }
            match self.canon_text(&vals, r) {
                Ok(s) => Ok(Some(s)),
                Err(e) => {
                    fail = Some(e);
                    Err(String::new())
                }
            }
        });
        match (out, fail) {
            (_, Some(e)) => Err(e),
            (Ok(s), None) => Ok(s),
            (Err(e), None) => Err(self.bad(e)),
        }
    }

    pub(super) fn produce(&mut self, inst: &Inst<'_>) -> Res<Option<usize>> {
        let Some((kind, fields)) = inst.op.and_then(|o| o.out.as_ref()) else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for (k, j) in fields {
            let v = match j {
                Json::Exact(r) => {
                    let v = self.resolve(&inst.vals, r)?;
                    match v {
                        Val::Entity(_) => Val::Json(self.canon(&inst.vals, r)?),
                        other if r.neg => Val::Json(
                            other
                                .canonical(true)
                                .map_err(|e| self.bad(format!("out {k}: {e}")))?,
                        ),
                        other => other,
                    }
                }
                other => Val::Json(self.json(other, &inst.vals)?),
            };
            out.push((k.clone(), v));
        }
        Ok(Some(self.new_entity(kind, out)?))
    }
}
