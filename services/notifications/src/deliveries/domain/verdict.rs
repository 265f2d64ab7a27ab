//! What a try's answer means for its task and for its endpoint: any 2xx delivers; 410
//! Gone turns the endpoint off; anything else (another status, no answer at all) is tried
//! again on the schedule until the tries run out. An endpoint whose every try has failed
//! for five days is turned off as well.

use super::schedule;

/// How long an endpoint may fail everything before Coffer turns it off.
pub const FAILING_LIMIT_MS: i64 = 5 * 24 * 3600 * 1000;

/// A try's answer: the status, when one came, and its `Retry-After` in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub status: Option<u16>,
    pub retry_after: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Task {
    Delivered,
    /// Tried again at this instant (Unix ms).
    RetryAt(i64),
    /// No more tries: the log marks the try `do_not_retry`.
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// It answered: it no longer counts as failing.
    Healthy,
    /// Failing since then (Unix ms).
    Failing(i64),
    /// Turned off, for this reason.
    Disable(&'static str),
}

pub const GONE: &str = "the endpoint answered 410 Gone";
pub const FAILING: &str = "every delivery to the endpoint failed for five days";

/// Judges one try. `tries` counts it; `failing_since` is the endpoint's, before it.
pub fn judge(
    answer: Answer,
    tries: i32,
    max_tries: i32,
    jitter: i64,
    failing_since: Option<i64>,
    now_ms: i64,
) -> (Task, Endpoint) {
    match answer.status {
        Some(200..=299) => (Task::Delivered, Endpoint::Healthy),
        Some(410) => (Task::Failed, Endpoint::Disable(GONE)),
        _ => {
            let since = failing_since.unwrap_or(now_ms);
            let endpoint = if now_ms - since >= FAILING_LIMIT_MS {
                Endpoint::Disable(FAILING)
            } else {
                Endpoint::Failing(since)
            };
            let task = match schedule::next_wait_ms(tries, max_tries, answer.retry_after, jitter) {
                Some(wait) if !matches!(endpoint, Endpoint::Disable(_)) => {
                    Task::RetryAt(now_ms + wait)
                }
                _ => Task::Failed,
            };
            (task, endpoint)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO: Answer = Answer {
        status: None,
        retry_after: None,
    };

    fn status(code: u16) -> Answer {
        Answer {
            status: Some(code),
            retry_after: None,
        }
    }

    #[test]
    fn a_2xx_delivers_and_a_410_turns_the_endpoint_off() {
        assert_eq!(
            judge(status(204), 1, 8, 0, Some(5), 10),
            (Task::Delivered, Endpoint::Healthy)
        );
        assert_eq!(
            judge(status(410), 1, 8, 0, None, 10),
            (Task::Failed, Endpoint::Disable(GONE))
        );
    }

    #[test]
    fn other_answers_are_retried_until_the_tries_run_out() {
        assert_eq!(
            judge(status(500), 1, 8, 0, None, 1_000),
            (Task::RetryAt(6_000), Endpoint::Failing(1_000))
        );
        assert_eq!(
            judge(NO, 2, 8, 0, Some(500), 1_000),
            (Task::RetryAt(301_000), Endpoint::Failing(500))
        );
        assert_eq!(
            judge(status(301), 8, 8, 0, Some(500), 1_000),
            (Task::Failed, Endpoint::Failing(500))
        );
        let asked = Answer {
            status: Some(429),
            retry_after: Some(60),
        };
        assert_eq!(judge(asked, 1, 8, 0, None, 0).0, Task::RetryAt(60_000));
    }

    #[test]
    fn five_days_of_failures_turn_the_endpoint_off() {
        let day = 24 * 3600 * 1000;
        assert_eq!(
            judge(NO, 1, 8, 0, Some(0), 5 * day - 1).1,
            Endpoint::Failing(0)
        );
        assert_eq!(
            judge(NO, 1, 8, 0, Some(0), 5 * day),
            (Task::Failed, Endpoint::Disable(FAILING))
        );
    }
}
