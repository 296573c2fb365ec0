//! The texts of a task: frames, openers and lists around the request, the answer and what
//! it tells, and the official node objects of calls and of preparing to answer.

use crate::generate::spec::MixedShape;
use crate::json::{dumps, Escape, Map, Value};
use crate::outcome::{TaskType, PREPARE_NAME};

use super::{capitalize, fill, node, Builder, Inst, Res};

impl<'a> Builder<'a> {
    pub(super) fn frame(&mut self, x: &str) -> String {
        let f = self.pick_str(&self.common.frames.clone());
        capitalize(&fill(&f, &[("x", x)]))
    }

    fn list(&self, items: &[String]) -> String {
        match items {
            [] => String::new(),
            [one] => one.clone(),
            [init @ .., last] => {
                format!("{}{}{last}", init.join(&self.common.comma), self.common.and)
            }
        }
    }

    fn then(&mut self) -> String {
        self.pick_str(&self.common.then.clone())
    }

    fn also(&mut self) -> String {
        self.pick_str(&self.common.also.clone())
    }

    pub(super) fn opener(&mut self, p: usize) -> String {
        if p == 0 {
            String::new()
        } else {
            self.pick_str(&self.common.openers.clone())
        }
    }

    pub(super) fn tail(&mut self) -> String {
        self.pick_str(&self.common.tails.clone())
    }

    pub(super) fn request_text(
        &mut self,
        ty: TaskType,
        shape: MixedShape,
        frags: &[String],
    ) -> String {
        let f = |i: usize| frags.get(i).cloned().unwrap_or_default();
        match ty {
            TaskType::ParallelMultiTool => self.list(frags),
            TaskType::SequentialMultiTool => {
                let mut out = f(0);
                for x in frags.iter().skip(1) {
                    out.push_str(&self.then());
                    out.push_str(x);
                }
                out
            }
            TaskType::MixedMultiTool => match shape {
                MixedShape::ChainSide => {
                    format!("{}{}{}{}{}", f(0), self.then(), f(2), self.also(), f(1))
                }
                MixedShape::FanOut => {
                    let l = self.list(&[f(1), f(2)]);
                    format!("{}{}{l}", f(0), self.then())
                }
                MixedShape::FanIn => {
                    let l = self.list(&[f(0), f(1)]);
                    format!("{l}{}{}", self.then(), f(2))
                }
                MixedShape::TwoChains => format!(
                    "{}{}{}{}{}{}{}",
                    f(0),
                    self.then(),
                    f(2),
                    self.also(),
                    f(1),
                    self.then(),
                    f(3)
                ),
            },
            _ => f(0),
        }
    }

    pub(super) fn answer(&mut self, tells: &[String]) -> String {
        let x = tells.join(&self.common.tell_join);
        let f = self.pick_str(&self.common.answers.clone());
        fill(&f, &[("x", &x)])
    }

    pub(super) fn tell(&mut self, inst: &Inst<'_>) -> Res<String> {
        let Some(op) = inst.op else {
            return Ok(String::new());
        };
        let t = self
            .rng
            .pick(&op.tell)
            .cloned()
            .ok_or_else(|| self.bad(format!("op {} has no tell", op.id)))?;
        self.text(&t, &inst.vals)
    }

    pub(super) fn call_node(
        &self,
        idx: usize,
        inst: &Inst<'_>,
        deps: &[usize],
    ) -> Res<(Value, String)> {
        let op = inst
            .op
            .ok_or_else(|| self.bad("a call without an op".into()))?;
        let args = self.json(&op.args, &inst.vals)?;
        let obs = self.json(&op.obs, &inst.vals)?;
        let content = format!(
            "{} {}",
            dumps(&args, Escape::Utf8),
            dumps(&obs, Escape::Utf8)
        );
        Ok((node(idx, &op.tool, args, obs, deps, None), content))
    }

    pub(super) fn prepare_node(idx: usize, answer: &str, chat: bool, deps: Vec<usize>) -> Value {
        let mut a = Map::new();
        a.insert(
            "answer_type",
            Value::str(if chat { "chat" } else { "tool" }),
        );
        node(
            idx,
            PREPARE_NAME,
            Value::Object(a),
            Value::str(answer),
            &deps,
            None,
        )
    }
}
