//! `wildtool_core::order` sorts and collects exactly like the standard library calls it
//! replaces (stable order, later duplicates win in maps).

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use wildtool_core::order::{map_from, set_from, sort, sort_by, sort_by_key};

proptest! {
    #[test]
    fn sorts_like_the_standard_library(v in proptest::collection::vec((0u8..6, any::<u16>()), 0..200)) {
        let mut ours = v.clone();
        let mut std = v.clone();
        sort_by_key(&mut ours, |p| p.0);
        std.sort_by_key(|p| p.0);
        prop_assert_eq!(&ours, &std);

        let mut ours = v.clone();
        let mut std = v.clone();
        sort_by(&mut ours, |a, b| (b.1 % 7).cmp(&(a.1 % 7)).then(a.0.cmp(&b.0)));
        std.sort_by(|a, b| (b.1 % 7).cmp(&(a.1 % 7)).then(a.0.cmp(&b.0)));
        prop_assert_eq!(&ours, &std);

        let mut ours = v.clone();
        let mut std = v.clone();
        sort(&mut ours);
        std.sort();
        prop_assert_eq!(ours, std);
    }

    #[test]
    fn maps_and_sets_like_collect(v in proptest::collection::vec((0u8..20, any::<u16>()), 0..100)) {
        prop_assert_eq!(map_from(v.clone()), v.iter().copied().collect::<BTreeMap<_, _>>());
        prop_assert_eq!(set_from(v.clone()), v.iter().copied().collect::<BTreeSet<_>>());
    }
}
