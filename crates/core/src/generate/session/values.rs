//! Drawing and rendering values: new entities, a slot's value, references and templates
//! resolved against the values drawn, and how a slot is said in words.

use std::collections::{BTreeMap, BTreeSet};

use crate::generate::calendar::{hhmm, iso};
use crate::generate::pack::{Slot, SlotType};
use crate::generate::spec::ArgStyle;
use crate::generate::template::{Json, Ref, Text};
use crate::generate::value::{say, Val};
use crate::json::{Map, Value};

use super::{class_name, expand_id, fatal, retry, Builder, Entity, Inst, Res, Said};

impl<'a> Builder<'a> {
    pub(super) fn new_entity(&mut self, kind: &str, fields: Vec<(String, Val)>) -> Res<usize> {
        let key_val = fields
            .iter()
            .find(|(k, _)| k == "id")
            .or_else(|| fields.iter().find(|(k, _)| k == "name"))
            .map(|(_, v)| v.clone())
            .ok_or_else(|| self.bad(format!("an entity of {kind} has no name or id")))?;
        let key = key_val
            .canonical_text(false)
            .map_err(|e| self.bad(format!("entity key of {kind}: {e}")))?;
        self.entities.push(Entity {
            kind: kind.to_owned(),
            fields,
            key,
            last: None,
            by_user: false,
        });
        Ok(self.entities.len() - 1)
    }

    pub(super) fn draw(
        &mut self,
        slot: &Slot,
        task_used: &mut BTreeSet<(String, String)>,
    ) -> Res<Val> {
        let today = self.plan.today;
        let r = &mut self.rng;
        Ok(match &slot.ty {
            SlotType::Kind(k) if self.blocked_kind.as_ref() == Some(k) => {
                return retry("the linked kind is taken in this task");
            }
            SlotType::Kind(k) => {
                let kind = self
                    .pack
                    .kind(k)
                    .ok_or_else(|| self.bad(format!("unknown kind {k}")))?;
                let name_of = |m: &Map| {
                    m.get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned()
                };
                let kept: BTreeSet<String> = self
                    .reserved
                    .keys()
                    .filter_map(|&e| self.entities.get(e))
                    .map(|e| e.key.clone())
                    .collect();
                let allowed: Vec<&Map> = kind
                    .values
                    .iter()
                    .filter(|m| {
                        let name = name_of(m);
                        !task_used.contains(&(k.clone(), name.clone())) && !kept.contains(&name)
                    })
                    .collect();
                // Values new to the session first; once they run out, values the session
                // already named (the same entity again).
                let fresh: Vec<&Map> = allowed
                    .iter()
                    .copied()
                    .filter(|m| !self.used.contains(&(k.clone(), name_of(m))))
                    .collect();
                let pool = if fresh.is_empty() { &allowed } else { &fresh };
                let Some(record) = self.rng.pick(pool).map(|m| (*m).clone()) else {
                    return retry("no unused value of a kind");
                };
                let name = name_of(&record);
                task_used.insert((k.clone(), name.clone()));
                if let Some(e) = self
                    .entities
                    .iter()
                    .position(|e| &e.kind == k && e.key == name && e.last.is_some())
                {
                    return Ok(Val::Entity(e));
                }
                let fields = record
                    .iter()
                    .map(|(f, v)| (f.clone(), Val::Json(v.clone())))
                    .collect();
                Val::Entity(self.new_entity(k, fields)?)
            }
            SlotType::Int { lo, hi, step } => {
                let n = (hi - lo) / step;
                Val::Int(lo + step * r.range(0, n))
            }
            SlotType::Qty(u, pick) => Val::Qty(r.pick(pick).copied().unwrap_or(0), *u),
            SlotType::Money(lo, hi) => Val::Money(r.range(*lo, *hi)),
            SlotType::Date(lo, hi) => Val::Date(today + r.range(*lo, *hi)),
            SlotType::DateTime { days, hours, step } => {
                let d = today + r.range(days.0, days.1);
                let m = r.range(hours.0, hours.1) * 60 + step * r.range(0, (59 / step).max(0));
                Val::DateTime(d, m)
            }
            SlotType::Time(hours, step) => {
                Val::Time(r.range(hours.0, hours.1) * 60 + step * r.range(0, (59 / step).max(0)))
            }
            SlotType::Period(kinds) => {
                let k = r
                    .pick(kinds)
                    .copied()
                    .ok_or_else(|| self.bad("empty period".into()))?;
                let (s, e) = k.range(today);
                Val::Period(k, s, e)
            }
            SlotType::Choice(options, _) => {
                Val::Choice(r.pick(options).map(|(v, _)| v.clone()).unwrap_or_default())
            }
            SlotType::Text(list) => Val::Text(r.pick(list).cloned().unwrap_or_default()),
            SlotType::Id(pattern) => Val::Text(expand_id(pattern, r)),
            SlotType::Pick(list) => Val::Json(r.pick(list).cloned().unwrap_or(Value::Null)),
        })
    }

    pub(super) fn resolve(&self, vals: &BTreeMap<String, Val>, r: &Ref) -> Res<Val> {
        let v = vals
            .get(&r.slot)
            .ok_or_else(|| self.bad(format!("slot {} has no value", r.slot)))?;
        match (v, &r.field) {
            (Val::Entity(i), Some(f)) => {
                let e = self
                    .entities
                    .get(*i)
                    .ok_or_else(|| self.bad("dangling entity".into()))?;
                e.fields
                    .iter()
                    .find(|(k, _)| k == f)
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| self.bad(format!("a {} has no field {f}", e.kind)))
            }
            (Val::Entity(i), None) => {
                let e = self
                    .entities
                    .get(*i)
                    .ok_or_else(|| self.bad("dangling entity".into()))?;
                Ok(Val::Json(Value::Str(e.key.clone())))
            }
            (other, Some(f)) => other
                .field(f)
                .ok_or_else(|| self.bad(format!("slot {} has no field {f}", r.slot))),
            (other, None) => Ok(other.clone()),
        }
    }

    pub(super) fn canon(&self, vals: &BTreeMap<String, Val>, r: &Ref) -> Res<Value> {
        self.resolve(vals, r)?
            .canonical(r.neg)
            .map_err(|e| self.bad(format!("{{{}}}: {e}", r.slot)))
    }

    pub(super) fn canon_text(&self, vals: &BTreeMap<String, Val>, r: &Ref) -> Res<String> {
        self.resolve(vals, r)?
            .canonical_text(r.neg)
            .map_err(|e| self.bad(format!("{{{}}}: {e}", r.slot)))
    }

    pub(super) fn json(&self, j: &Json, vals: &BTreeMap<String, Val>) -> Res<Value> {
        Ok(match j {
            Json::Lit(v) => v.clone(),
            Json::Exact(r) => self.canon(vals, r)?,
            Json::Str(t) => Value::Str(self.text(t, vals)?),
            Json::Array(a) => Value::Array(
                a.iter()
                    .map(|x| self.json(x, vals))
                    .collect::<Res<Vec<_>>>()?,
            ),
            Json::Object(o) => {
                let mut m = Map::new();
                for (k, v) in o {
                    m.insert(k.clone(), self.json(v, vals)?);
                }
                Value::Object(m)
            }
        })
    }

    /// Renders a text with canonical values (assistant side).
    pub(super) fn text(&self, t: &Text, vals: &BTreeMap<String, Val>) -> Res<String> {
        let mut fail = None;
        let out = t.render(&mut |r| match self.canon_text(vals, r) {
            Ok(s) => Ok(Some(s)),
            Err(e) => {
                fail = Some(e);
                Err(String::new())
            }
        });
        match (out, fail) {
            (_, Some(e)) => Err(e),
            (Ok(s), None) => Ok(s),
            (Err(e), None) => Err(self.bad(e)),
        }
    }

    /// The user's words for a fresh slot (cached per instance; recorded for the card).
    pub(super) fn verbal(&mut self, inst: &mut Inst<'_>, slot: &str) -> Res<String> {
        if let Some(s) = inst.verbal.get(slot) {
            return Ok(s.clone());
        }
        let def = inst
            .slot(slot)
            .ok_or_else(|| self.bad(format!("unknown slot {slot}")))?;
        let val = inst
            .vals
            .get(slot)
            .cloned()
            .ok_or_else(|| self.bad(format!("slot {slot} has no value")))?;
        let transformed = match self.plan.args {
            ArgStyle::Literal => false,
            ArgStyle::Transformed => true,
            ArgStyle::Mixed => self.rng.chance(1, 2),
        };
        let (lit, phrases): (&str, Vec<String>) = match (&def.ty, &val) {
            (SlotType::Choice(options, lit), Val::Choice(v)) => (
                lit.as_str(),
                options
                    .iter()
                    .find(|(x, _)| x == v)
                    .map(|(_, p)| p.clone())
                    .unwrap_or_default(),
            ),
            _ => ("{v}", Vec::new()),
        };
        let text = match &val {
            Val::Entity(i) => (
                self.entities
                    .get(*i)
                    .map(|e| e.key.clone())
                    .unwrap_or_default(),
                None,
            ),
            _ => {
                let r = &mut self.rng;
                say(
                    &self.common.words,
                    &val,
                    self.plan.today,
                    transformed,
                    lit,
                    &phrases,
                    &mut |n| r.below(n),
                )
                .map_err(|e| fatal(&self.pack.id, format!("slot {slot}: {e}")))?
            }
        };
        if let Some(style) = text.1 {
            let value = match &val {
                Val::Date(d) | Val::DateTime(d, _) | Val::Period(_, d, _) => iso(*d),
                Val::Time(m) => hhmm(*m),
                Val::Qty(v, _) => v.to_string(),
                Val::Choice(v) => v.clone(),
                other => other.canonical_text(false).unwrap_or_default(),
            };
            self.said.push(Said {
                slot: slot.to_owned(),
                class: class_name(&def.ty),
                transformed: Some(style),
                text: text.0.clone(),
                value,
            });
        }
        inst.verbal.insert(slot.to_owned(), text.0.clone());
        Ok(text.0)
    }
}
