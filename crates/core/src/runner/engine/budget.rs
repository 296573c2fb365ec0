//! The run's spend and its limit: every reply's reported usage is priced; before a request
//! is sent its cost is estimated (prompt tokens from the request body's size, completion
//! tokens as the most a reply has used so far, at least [`OUTPUT_RESERVE`]) and reserved,
//! and a request whose estimate would take the spend past the limit is not sent.
//! A request given up (timed out, aborted) keeps its estimate as spent, since the server
//! may bill it.

use std::collections::BTreeMap;

use super::RequestId;
use crate::cost::estimate::tokens_of_bytes;
use crate::cost::ModelPrice;
use crate::protocol::Reply;

/// Completion tokens reserved for a request before any reply has said more.
pub const OUTPUT_RESERVE: u64 = 512;

/// Spend and reservations.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    prices: ModelPrice,
    limit: Option<f64>,
    pub(crate) spent: f64,
    reserved: BTreeMap<RequestId, f64>,
    output_reserve: u64,
}

fn count(v: &crate::json::Value) -> u64 {
    v.as_i64().map(|x| x.max(0) as u64).unwrap_or(0)
}

impl Budget {
    pub(crate) fn new(prices: ModelPrice, limit: Option<f64>) -> Self {
        Budget {
            prices,
            limit,
            spent: 0.0,
            reserved: BTreeMap::new(),
            output_reserve: OUTPUT_RESERVE,
        }
    }

    /// Reserves the estimate of a request of `body_bytes`; false (nothing reserved) when
    /// it would pass the limit.
    pub(crate) fn admit(&mut self, id: RequestId, body_bytes: usize) -> bool {
        let estimate =
            self.prices
                .request_cost(tokens_of_bytes(body_bytes), 0, self.output_reserve);
        let committed = self.spent + self.reserved.values().sum::<f64>();
        if self.limit.is_some_and(|l| committed + estimate > l) {
            return false;
        }
        self.reserved.insert(id, estimate);
        true
    }

    /// The request's answer arrived: its reservation ends.
    pub(crate) fn release(&mut self, id: RequestId) {
        self.reserved.remove(&id);
    }

    /// The request was given up: its estimate counts as spent.
    pub(crate) fn lose(&mut self, id: RequestId) {
        if let Some(e) = self.reserved.remove(&id) {
            self.spent += e;
        }
    }

    /// Prices a reply's reported usage.
    pub(crate) fn charge(&mut self, reply: &Reply) {
        let output = count(&reply.output_tokens);
        self.output_reserve = self.output_reserve.max(output);
        self.spent += self.prices.request_cost(
            count(&reply.input_tokens),
            count(&reply.cached_input_tokens),
            output,
        );
    }

    pub(crate) fn limit(&self) -> Option<f64> {
        self.limit
    }
}
