//! How a sender's tries are shared out. A try is held from its claim to its answer, and
//! made once it has a slot of its endpoint and one of its organisation's: each endpoint,
//! and the endpoints of each organisation together, hold at most a few rounds of their
//! slots. So one organisation's endpoints that hang take their own slots and room, never
//! the room or slots another organisation's deliveries need. Pure: the sender counts what
//! it holds, and a claim asks here how many more tasks each endpoint may take.

use std::collections::{HashMap, HashSet};

/// Slots, and how many rounds of them may be held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Tries in flight at once to one endpoint, and to the endpoints of one organisation.
    pub endpoint_slots: usize,
    pub organisation_slots: usize,
    /// Tries held per slot: the next ones are claimed before a slot frees, and wait for it.
    pub ahead: usize,
}

impl Limits {
    fn endpoint_cap(&self) -> usize {
        self.endpoint_slots.max(1) * self.ahead
    }

    fn organisation_cap(&self) -> usize {
        self.organisation_slots.max(1) * self.ahead
    }

    /// Full rounds of slots a try may wait behind, claimed with `endpoint_ahead` tries of
    /// its endpoint and `organisation_ahead` of its organisation held before it (its lease
    /// allows a try's time for each).
    pub fn rounds(&self, endpoint_ahead: usize, organisation_ahead: usize) -> usize {
        endpoint_ahead / self.endpoint_slots.max(1)
            + organisation_ahead / self.organisation_slots.max(1)
    }
}

/// What a sender holds by endpoint and by organisation, and the room a claim has left.
#[derive(Debug, Clone)]
pub struct Share {
    room: usize,
    limits: Limits,
    endpoints: HashMap<String, usize>,
    organisations: HashMap<String, usize>,
}

/// The endpoints and organisations a claim left at their cap: it may have left more of
/// theirs due.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capped {
    endpoints: HashSet<String>,
    organisations: HashSet<String>,
}

impl Share {
    /// `room` tries in all may be taken; `endpoints` and `organisations` count those held.
    pub fn new(
        room: usize,
        limits: Limits,
        endpoints: HashMap<String, usize>,
        organisations: HashMap<String, usize>,
    ) -> Share {
        Share {
            room,
            limits,
            endpoints,
            organisations,
        }
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    pub fn room(&self) -> usize {
        self.room
    }

    /// Tries held for `endpoint`, and for its `organisation`'s endpoints together.
    pub fn held(&self, endpoint: &str, organisation: &str) -> (usize, usize) {
        let count = |m: &HashMap<String, usize>, k: &str| m.get(k).copied().unwrap_or(0);
        (
            count(&self.endpoints, endpoint),
            count(&self.organisations, organisation),
        )
    }

    /// How many more of `endpoint`'s tasks may be taken now.
    pub fn free(&self, endpoint: &str, organisation: &str) -> usize {
        let (by_endpoint, by_organisation) = self.held(endpoint, organisation);
        self.room
            .min(self.limits.endpoint_cap().saturating_sub(by_endpoint))
            .min(
                self.limits
                    .organisation_cap()
                    .saturating_sub(by_organisation),
            )
    }

    /// Counts `n` of `endpoint`'s tasks taken.
    pub fn take(&mut self, endpoint: &str, organisation: &str, n: usize) {
        self.room = self.room.saturating_sub(n);
        *self.endpoints.entry(endpoint.to_owned()).or_default() += n;
        *self
            .organisations
            .entry(organisation.to_owned())
            .or_default() += n;
    }

    /// How many endpoints a claim may pass over besides those it takes from: at most each
    /// endpoint held, at its cap or its organisation's.
    pub fn passed_over(&self) -> usize {
        self.endpoints.len()
    }

    pub fn capped(&self) -> Capped {
        let at = |m: &HashMap<String, usize>, cap: usize| {
            m.iter()
                .filter(|(_, n)| **n >= cap)
                .map(|(k, _)| k.clone())
                .collect()
        };
        Capped {
            endpoints: at(&self.endpoints, self.limits.endpoint_cap()),
            organisations: at(&self.organisations, self.limits.organisation_cap()),
        }
    }

    /// Whether one of `capped` is down by half its slots since: claimed for again then, a
    /// busy endpoint or organisation costs a claim per several tries, not one per try.
    pub fn refill(&self, capped: &Capped) -> bool {
        let down = |m: &HashMap<String, usize>, k: &String, cap: usize, slots: usize| {
            m.get(k).copied().unwrap_or(0) <= cap - (slots / 2).max(1).min(cap)
        };
        let l = self.limits;
        capped
            .endpoints
            .iter()
            .any(|e| down(&self.endpoints, e, l.endpoint_cap(), l.endpoint_slots))
            || capped.organisations.iter().any(|o| {
                down(
                    &self.organisations,
                    o,
                    l.organisation_cap(),
                    l.organisation_slots,
                )
            })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        endpoint_slots: 2,
        organisation_slots: 4,
        ahead: 3,
    };

    fn share(room: usize) -> Share {
        Share::new(room, LIMITS, HashMap::new(), HashMap::new())
    }

    #[test]
    fn an_organisation_at_its_cap_takes_nothing_more_whatever_its_endpoints_hold() {
        let mut s = share(100);
        assert_eq!(s.free("e1", "a"), 6);
        for e in ["e1", "e2"] {
            s.take(e, "a", 6);
        }
        assert_eq!(s.free("e1", "a"), 0, "the endpoint is at its cap");
        assert_eq!(s.free("e3", "a"), 0, "and its organisation at 12");
        assert_eq!(
            s.free("e4", "b"),
            6,
            "another organisation is not held back"
        );
        assert_eq!((s.room(), s.held("e3", "a")), (88, (0, 12)));
    }

    #[test]
    fn room_bounds_every_take() {
        let mut s = share(4);
        assert_eq!(s.free("e1", "a"), 4);
        s.take("e1", "a", 4);
        assert_eq!(s.free("e2", "b"), 0);
    }

    #[test]
    fn a_capped_endpoint_or_organisation_is_claimed_for_again_once_down_by_half_its_slots() {
        let mut s = share(100);
        s.take("e1", "a", 6);
        s.take("e2", "b", 4);
        s.take("e3", "b", 4);
        s.take("e4", "b", 4);
        let capped = s.capped();
        assert_eq!(
            capped,
            Capped {
                endpoints: ["e1".to_owned()].into(),
                organisations: ["b".to_owned()].into(),
            }
        );
        let held = |e1: usize, b: usize| {
            let endpoints = HashMap::from([("e1".to_owned(), e1)]);
            let organisations = HashMap::from([("a".to_owned(), e1), ("b".to_owned(), b)]);
            Share::new(100, LIMITS, endpoints, organisations)
        };
        assert!(!held(6, 12).refill(&capped));
        assert!(
            held(5, 12).refill(&capped),
            "e1 is down by one of its two slots"
        );
        assert!(!held(6, 11).refill(&capped), "b is down by one of its four");
        assert!(held(6, 10).refill(&capped), "and then by two");
    }

    #[test]
    fn a_try_waits_at_most_a_round_for_every_full_round_held_before_it() {
        assert_eq!(LIMITS.rounds(0, 0), 0);
        assert_eq!(LIMITS.rounds(1, 3), 0);
        assert_eq!(LIMITS.rounds(2, 3), 1);
        assert_eq!(LIMITS.rounds(5, 11), 4);
    }
}
