//! Puts the messages of one-direction JSON-RPC captures (one file per sender) back into a
//! single stream, since separate captures do not record which direction came first.
//!
//! The rule, deterministic and blind to timestamps (raw captures have none):
//!
//! 1. each capture keeps its own order;
//! 2. the k-th response with a given id waits until the k-th request with that id from another
//!    capture has been taken (a response whose request no capture holds does not wait);
//! 3. the turn starts with the first capture whose first message is a request (the side that
//!    opens the conversation), else with the first capture given; the side holding the turn
//!    keeps it through its notifications (and responses nobody asked for) and passes it on
//!    after each request it sends and each response that answers one, or when its next
//!    message has to wait or it has nothing left;
//! 4. if every remaining head has to wait (an order no real connection could produce), the
//!    side holding the turn sends anyway, and the checker reports what follows from that.

use std::collections::HashMap;

use serde_json::Value;

/// What the merge needs to know about a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// A request, with its id as canonical JSON text (`1` and `"1"` differ).
    Request(String),
    /// A response; `None` when its id is null or missing.
    Response(Option<String>),
    /// A notification, or anything else without an id to pair.
    Notification,
}

impl Shape {
    /// Reads the JSON-RPC envelope of `message`.
    pub fn of(message: &Value) -> Shape {
        let id = message
            .get("id")
            .filter(|id| !id.is_null())
            .map(Value::to_string);
        match (message.get("method").is_some(), id) {
            (true, Some(id)) => Shape::Request(id),
            (true, None) => Shape::Notification,
            (false, id) if message.get("result").is_some() || message.get("error").is_some() => {
                Shape::Response(id)
            }
            _ => Shape::Notification,
        }
    }
}

/// Merges the captures `sides` (each in its own order) and returns every message once, as
/// `(capture, index within that capture)`, in the merged order.
pub fn merge(sides: &[Vec<Shape>]) -> Vec<(usize, usize)> {
    let n = sides.len();
    let total: usize = sides.iter().map(Vec::len).sum();
    let mut requests_total: Vec<HashMap<&str, usize>> = vec![HashMap::new(); n];
    for (side, shapes) in sides.iter().enumerate() {
        for shape in shapes {
            if let Shape::Request(id) = shape {
                *requests_total[side].entry(id.as_str()).or_default() += 1;
            }
        }
    }
    let mut requests_taken: Vec<HashMap<&str, usize>> = vec![HashMap::new(); n];
    let mut responses_taken: Vec<HashMap<&str, usize>> = vec![HashMap::new(); n];
    let mut heads = vec![0usize; n];
    let mut turn = sides
        .iter()
        .position(|s| matches!(s.first(), Some(Shape::Request(_))))
        .unwrap_or(0);
    let mut order = Vec::with_capacity(total);

    let others = |counts: &Vec<HashMap<&str, usize>>, side: usize, id: &str| -> usize {
        (0..n)
            .filter(|&o| o != side)
            .map(|o| counts[o].get(id).copied().unwrap_or(0))
            .sum()
    };

    while order.len() < total {
        let head = |side: usize| sides[side].get(heads[side]);
        let ready = |side: usize| match head(side) {
            None => false,
            Some(Shape::Response(Some(id))) => {
                let k = responses_taken[side].get(id.as_str()).copied().unwrap_or(0) + 1;
                others(&requests_taken, side, id) >= k || others(&requests_total, side, id) < k
            }
            Some(_) => true,
        };
        let in_turn_order = (0..n).map(|d| (turn + d) % n);
        let pick = in_turn_order
            .clone()
            .find(|&s| ready(s))
            .or_else(|| in_turn_order.clone().find(|&s| head(s).is_some()));
        let Some(side) = pick else { break };
        let shape = &sides[side][heads[side]];
        match shape {
            Shape::Request(id) => *requests_taken[side].entry(id.as_str()).or_default() += 1,
            Shape::Response(Some(id)) => {
                *responses_taken[side].entry(id.as_str()).or_default() += 1
            }
            _ => {}
        }
        order.push((side, heads[side]));
        heads[side] += 1;
        // A request hands the turn over (the other side may answer it), and so does a
        // response someone was waiting for; a notification or a stray response does not.
        let hands_over = match shape {
            Shape::Request(_) => true,
            Shape::Response(Some(id)) => {
                let k = responses_taken[side].get(id.as_str()).copied().unwrap_or(0);
                others(&requests_taken, side, id) >= k
            }
            _ => false,
        };
        turn = if hands_over { (side + 1) % n } else { side };
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(id: i64) -> Shape {
        Shape::Request(id.to_string())
    }
    fn resp(id: i64) -> Shape {
        Shape::Response(Some(id.to_string()))
    }
    const NOTE: Shape = Shape::Notification;

    /// The merged order written as `c0 s1 ...` (side letter, index).
    fn show(sides: &[Vec<Shape>]) -> String {
        merge(sides)
            .iter()
            .map(|&(side, i)| format!("{}{i}", ["c", "s"][side]))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn reads_envelopes() {
        assert_eq!(Shape::of(&json!({"id": 1, "method": "x"})), req(1));
        assert_eq!(
            Shape::of(&json!({"id": "1", "method": "x"})),
            Shape::Request("\"1\"".into())
        );
        assert_eq!(Shape::of(&json!({"method": "x"})), NOTE);
        assert_eq!(Shape::of(&json!({"id": 1, "result": null})), resp(1));
        assert_eq!(
            Shape::of(&json!({"id": null, "error": {}})),
            Shape::Response(None)
        );
        assert_eq!(Shape::of(&json!([1])), NOTE);
    }

    #[test]
    fn a_typical_session_interleaves_at_requests_and_responses() {
        // client: initialize, initialized, prompt, shutdown, exit
        let client = vec![req(1), NOTE, req(2), req(3), NOTE];
        // server: answer, three notifications, answer, answer
        let server = vec![resp(1), NOTE, NOTE, NOTE, resp(2), resp(3)];
        let want = "c0 s0 c1 c2 s1 s2 s3 s4 c3 s5 c4";
        assert_eq!(show(&[client.clone(), server.clone()]), want);
        // The side that opens with a request starts, whichever file comes first.
        let swapped: Vec<String> = merge(&[server, client])
            .iter()
            .map(|&(side, i)| format!("{}{i}", ["s", "c"][side]))
            .collect();
        assert_eq!(swapped.join(" "), want);
    }

    #[test]
    fn a_response_waits_for_its_request() {
        // The server answers 2 before 1; the client sends 1 then 2 back to back.
        let client = vec![req(1), req(2)];
        let server = vec![resp(2), resp(1)];
        assert_eq!(show(&[client, server]), "c0 c1 s0 s1");
    }

    #[test]
    fn reused_ids_pair_in_order() {
        let client = vec![req(1), req(1)];
        let server = vec![resp(1), resp(1)];
        assert_eq!(show(&[client, server]), "c0 s0 c1 s1");
    }

    #[test]
    fn unmatched_responses_neither_wait_nor_hand_over() {
        let client = vec![NOTE, req(1), NOTE];
        let server = vec![resp(9), Shape::Response(None), resp(1)];
        assert_eq!(show(&[client, server]), "c0 c1 s0 s1 s2 c2");
    }

    #[test]
    fn an_impossible_cycle_still_terminates() {
        // Each side answers a request the other sends only later.
        let client = vec![resp(5), req(1)];
        let server = vec![resp(1), req(5)];
        assert_eq!(show(&[client, server]), "c0 c1 s0 s1");
    }

    #[test]
    fn server_requests_are_answered_by_the_client() {
        let client = vec![req(1), resp(7), NOTE];
        let server = vec![req(7), resp(1)];
        assert_eq!(show(&[client, server]), "c0 s0 c1 s1 c2");
    }

    #[test]
    fn one_capture_keeps_its_order() {
        assert_eq!(show(&[vec![resp(1), NOTE, req(2)]]), "c0 c1 c2");
        assert!(merge(&[]).is_empty());
        assert!(merge(&[vec![], vec![]]).is_empty());
    }
}
