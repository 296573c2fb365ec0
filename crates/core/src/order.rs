//! Sorting and ordered collections through one shared instantiation.
//!
//! Every `slice::sort_by` call with its own element type or closure compiles the whole
//! stable sort again (about 4 KB of WebAssembly each), and so does every
//! `collect::<BTreeMap<_, _>>()` (it sorts before building). The page's module had more
//! than twenty such copies. Here the sorting is done once, on indices behind a
//! `dyn` comparison, and the elements are then moved into that order; maps are built by
//! insertion. Both are stable and give the same order as the standard library's calls
//! they replace; the cost is an index vector and a dynamic call per comparison, which
//! is immaterial at the sizes sorted here (tasks, sessions, categories).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// Sorts `items` stably by `cmp` (like `slice::sort_by`).
pub fn sort_by<T>(items: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    let order = {
        let view: &[T] = items;
        permutation(view.len(), &|a, b| match (view.get(a), view.get(b)) {
            (Some(x), Some(y)) => cmp(x, y),
            _ => Ordering::Equal,
        })
    };
    apply(items, &order);
}

/// Sorts `items` stably by the key `key` returns (like `slice::sort_by_key`).
pub fn sort_by_key<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` stably in their natural order (like `slice::sort`).
pub fn sort<T: Ord>(items: &mut Vec<T>) {
    sort_by(items, T::cmp);
}

/// A map from `(key, value)` pairs; a later pair replaces an earlier one with the same key
/// (like `collect::<BTreeMap<_, _>>()`).
pub fn map_from<K: Ord, V>(pairs: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    for (k, v) in pairs {
        map.insert(k, v);
    }
    map
}

/// A set of `items` (like `collect::<BTreeSet<_>>()`).
pub fn set_from<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut set = BTreeSet::new();
    for item in items {
        set.insert(item);
    }
    set
}

/// The stable order of `0..n` under `cmp`: the one sort instantiation of this module.
fn permutation(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Moves the elements of `items` into `order` (a permutation of its indices).
fn apply<T>(items: &mut Vec<T>, order: &[usize]) {
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(
        order
            .iter()
            .filter_map(|&i| slots.get_mut(i).and_then(Option::take)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn float_keys_sort_by_total_order() {
        let mut v = vec![2.5, -0.0, 0.0, f64::NAN, -1.0];
        sort_by(&mut v, f64::total_cmp);
        let bits: Vec<u64> = v.iter().map(|x| x.to_bits()).collect();
        let mut std = [2.5, -0.0, 0.0, f64::NAN, -1.0];
        std.sort_by(f64::total_cmp);
        assert_eq!(bits, std.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    }
}
