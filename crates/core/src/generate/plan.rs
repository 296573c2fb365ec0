//! The structure of each session, drawn before any text: domain, date, task types,
//! topologies, hidden-intent subtypes, clarification rounds, distractor count and argument
//! style. Every decision has its own random stream, so fixing or changing one factor
//! leaves the others' draws as they were (the pairing of a sweep).

use crate::outcome::{TaskType, TurnSubtype};

use super::calendar::days_from_civil;
use super::pack::Packs;
use super::rng::Rng;
use super::spec::{
    coarse_code, ArgStyle, GenerateSpec, MissingClass, MixedShape, MultiKind, TypeChoice,
};
use super::GenerateError;

/// Default weights of 0–3 transitions (the bundled suite: 14, 15, 17, 18 sessions).
pub const TRANSITION_WEIGHTS: [u32; 4] = [14, 15, 17, 18];
/// Default weights of the first task's coarse type: Single, Multi, Clarify, Chat.
pub const FIRST_WEIGHTS: [u32; 4] = [20, 21, 21, 2];
/// Default weights of the coarse type a transition switches to.
pub const CHANGE_WEIGHTS: [u32; 4] = [5, 5, 4, 18];
/// Default weights of Parallel, Sequential, Mixed among Multi-Tool tasks.
pub const MULTI_WEIGHTS: [u32; 3] = [32, 12, 20];
/// Default weights of parallel width 2..=8.
pub const WIDTH_WEIGHTS: [u32; 7] = [22, 7, 2, 1, 1, 1, 1];
/// Default weights of sequential depth 2..=5.
pub const DEPTH_WEIGHTS: [u32; 4] = [10, 3, 1, 1];
/// Default weights of the mixed shapes (chain-side, fan-out, fan-in, two-chains).
pub const SHAPE_WEIGHTS: [u32; 4] = [8, 3, 4, 3];
/// Default weights of 1 and 2 clarification rounds.
pub const ROUND_WEIGHTS: [u32; 2] = [9, 1];
/// Default weights of 0..=4 distractor tools.
pub const DISTRACTOR_WEIGHTS: [u32; 5] = [44, 10, 7, 2, 1];
/// Default subtype weights (coref, partial, long) of tasks 2, 3 and 4.
pub const SUBTYPE_WEIGHTS: [[u32; 3]; 3] = [[52, 12, 0], [24, 38, 2], [11, 8, 45]];

/// Attempts at a plan that satisfies every fixed factor.
const PLAN_ATTEMPTS: u64 = 256;

/// The structure of one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskPlan {
    /// The official type.
    pub task_type: TaskType,
    /// Calls if Parallel.
    pub width: u8,
    /// Calls if Sequential.
    pub depth: u8,
    /// Graph if Mixed.
    pub shape: MixedShape,
    /// Clarification rounds if Clarify.
    pub rounds: u8,
    /// Class of the first missing parameter if Clarify (`None`: any).
    pub missing: Option<MissingClass>,
    /// Hidden-intent subtype (tasks after the first).
    pub subtype: Option<TurnSubtype>,
    /// Exact long-range distance (`None`: the nearest source at least 3 turns back).
    pub distance: Option<u8>,
}

/// The structure of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPlan {
    /// 0-based session index.
    pub index: usize,
    /// Index into [`Packs::domains`].
    pub domain: usize,
    /// Session date (day number).
    pub today: i64,
    /// Session time, minutes after midnight.
    pub minute: i64,
    /// The four tasks.
    pub tasks: Vec<TaskPlan>,
    /// Distractor tools.
    pub distractors: u8,
    /// How values are stated.
    pub args: ArgStyle,
}

impl SessionPlan {
    /// Index of the user turn (task messages and clarification replies, 0-based) at
    /// which task `p`'s message is sent.
    pub fn message_turn(&self, p: usize) -> usize {
        self.tasks
            .iter()
            .take(p)
            .map(|t| {
                1 + usize::from(if t.task_type == TaskType::Clarify {
                    t.rounds
                } else {
                    0
                })
            })
            .sum()
    }

    /// Index of the last user turn of task `p` (its message, or its last clarification
    /// reply): the only turn of the task that can be the last to state a value, because
    /// the task's calls and answer come after it.
    pub fn final_turn(&self, p: usize) -> usize {
        self.message_turn(p + 1) - 1
    }

    /// Whether task `p` can refer `distance` turns back (`None`: at least 3) to the
    /// final turn of an earlier task.
    pub fn long_range_ok(&self, p: usize, distance: Option<u8>) -> bool {
        let at = self.message_turn(p);
        (0..p).any(|q| {
            let f = self.final_turn(q);
            match distance {
                Some(d) => f + usize::from(d) == at,
                None => f + 3 <= at,
            }
        })
    }
}

fn coarse_types(spec: &GenerateSpec, rng_k: &mut Rng, rng_t: &mut Rng) -> [u8; 4] {
    let k = spec
        .transitions
        .map(usize::from)
        .unwrap_or_else(|| rng_k.weighted(&TRANSITION_WEIGHTS));
    let mut first_w = FIRST_WEIGHTS;
    if k == 0 {
        first_w[3] = 0;
    }
    let first = rng_t.weighted(&first_w) as u8;
    let mut gaps = [1usize, 2, 3];
    rng_t.shuffle(&mut gaps);
    let changes = &gaps[..k.min(3)];
    let mut out = [first; 4];
    for p in 1..4 {
        out[p] = out[p - 1];
        if changes.contains(&p) {
            let mut w = CHANGE_WEIGHTS;
            w[usize::from(out[p - 1])] = 0;
            out[p] = rng_t.weighted(&w) as u8;
        }
    }
    out
}

fn to_type(code: u8, multi: MultiKind) -> TaskType {
    match code {
        0 => TaskType::SingleTool,
        1 => multi.task_type(),
        2 => TaskType::Clarify,
        _ => TaskType::Chat,
    }
}

/// Draws the plan of session `index`. `domains` are the allowed pack indexes. `redraw`
/// is 0 for the session's own plan; a higher value draws another one (used when no text
/// can realise a plan): first only the subtypes (when they are drawn), from the fifth
/// redraw on every drawn decision of the structure, from the thirteenth the domain too.
pub fn plan_session(
    packs: &Packs,
    spec: &GenerateSpec,
    domains: &[usize],
    index: usize,
    redraw: u64,
) -> Result<SessionPlan, GenerateError> {
    let (seed, i) = (spec.seed, index as u64);
    // The domain is redrawn only as a last resort (from the thirteenth plan on).
    let mut r = Rng::stream(seed, i, "domain", redraw.saturating_sub(11));
    let weights: Vec<u32> = domains
        .iter()
        .map(|&d| packs.domains.get(d).map(|p| p.weight.max(1)).unwrap_or(1))
        .collect();
    let domain = domains.get(r.weighted(&weights)).copied().unwrap_or(0);
    let mut r = Rng::stream(seed, i, "env", 0);
    let first = days_from_civil(2024, 1, 1);
    let last = days_from_civil(2026, 12, 31);
    let today = r.range(first, last);
    let minute = r.range(7, 22) * 60 + r.range(0, 11) * 5;
    let distractors = spec.distractors.unwrap_or_else(|| {
        Rng::stream(seed, i, "distractors", 0).weighted(&DISTRACTOR_WEIGHTS) as u8
    });
    let args = spec.args.unwrap_or(ArgStyle::Mixed);

    let mut last_reason = String::new();
    // Early redraws change only the subtypes (when they are drawn); later ones every
    // drawn decision of the structure.
    let shift = redraw * PLAN_ATTEMPTS;
    let (sub_shift, other_shift) = if spec.subtypes.is_none() && redraw < 4 {
        (shift, 0)
    } else {
        (shift, shift)
    };
    for attempt in 0..PLAN_ATTEMPTS {
        let a = attempt + other_shift;
        let mut rk = Rng::stream(seed, i, "transitions", a);
        let mut rt = Rng::stream(seed, i, "types", a);
        let mut rm = Rng::stream(seed, i, "multi", a);
        let mut ro = Rng::stream(seed, i, "topology", a);
        let mut rr = Rng::stream(seed, i, "rounds", a);
        let mut rs = Rng::stream(seed, i, "subtypes", attempt + sub_shift);
        let multis: Vec<MultiKind> = (0..4)
            .map(|_| {
                let drawn = MultiKind::ALL
                    .get(rm.weighted(&MULTI_WEIGHTS))
                    .copied()
                    .unwrap_or(MultiKind::Parallel);
                spec.multi.unwrap_or(drawn)
            })
            .collect();
        let types: Vec<TaskType> = match spec.types {
            Some(t) => t
                .iter()
                .zip(&multis)
                .map(|(c, &m)| match c {
                    TypeChoice::Exact(x) => *x,
                    TypeChoice::Multi => m.task_type(),
                })
                .collect(),
            None => coarse_types(spec, &mut rk, &mut rt)
                .iter()
                .zip(&multis)
                .map(|(&c, &m)| to_type(c, m))
                .collect(),
        };
        let mut tasks: Vec<TaskPlan> = Vec::with_capacity(4);
        for ty in &types {
            let width = 2 + ro.weighted(&WIDTH_WEIGHTS) as u8;
            let depth = 2 + ro.weighted(&DEPTH_WEIGHTS) as u8;
            let shape = MixedShape::ALL
                .get(ro.weighted(&SHAPE_WEIGHTS))
                .copied()
                .unwrap_or(MixedShape::ChainSide);
            let rounds = 1 + rr.weighted(&ROUND_WEIGHTS) as u8;
            tasks.push(TaskPlan {
                task_type: *ty,
                width: spec.width.unwrap_or(width),
                depth: spec.depth.unwrap_or(depth),
                shape: spec.shape.unwrap_or(shape),
                rounds: spec.rounds.unwrap_or(rounds),
                missing: spec.missing,
                subtype: None,
                distance: None,
            });
        }
        let mut plan = SessionPlan {
            index,
            domain,
            today,
            minute,
            tasks,
            distractors,
            args,
        };
        let mut ok = true;
        for p in 1..4 {
            let turn = plan.message_turn(p);
            let long_ok = plan.long_range_ok(p, spec.distance);
            let u = rs.next_u64();
            let subtype = match spec.subtypes {
                Some(s) => {
                    let st = s[p - 1];
                    if st == TurnSubtype::LongRangeDependency && !long_ok {
                        ok = false;
                        last_reason = format!(
                            "task {} (user turn {turn}) has no earlier task whose last turn is {} turns back",
                            p + 1,
                            spec.distance.map(|d| d.to_string()).unwrap_or_else(|| "at least 3".into())
                        );
                    }
                    st
                }
                None => {
                    let mut w = SUBTYPE_WEIGHTS[p - 1];
                    if !long_ok {
                        w[2] = 0;
                    }
                    let mut pick = Rng::new(u);
                    TurnSubtype::ALL
                        .get(pick.weighted(&w))
                        .copied()
                        .unwrap_or(TurnSubtype::CoreferentialReference)
                }
            };
            if let Some(t) = plan.tasks.get_mut(p) {
                t.subtype = Some(subtype);
                if subtype == TurnSubtype::LongRangeDependency {
                    t.distance = spec.distance;
                }
            }
        }
        if ok {
            return Ok(plan);
        }
    }
    Err(GenerateError::Infeasible {
        session: index,
        reason: last_reason,
    })
}

/// Coarse code of an official type (0 Single, 1 Multi, 2 Clarify, 3 Chat).
pub fn coarse_of(t: TaskType) -> u8 {
    coarse_code(TypeChoice::Exact(t))
}
