//! Requests the check refused: one that could not be read as a request of the stream's
//! protocol (the sequence check never saw it), or one the sequence check itself refused. What
//! their answers break is not reported, since the sequence check would otherwise report an
//! answer to a request it does not know: one broken request is one finding, not two. The
//! answers are still shown to it, as a request one machine refused may have started an
//! instance of another that the answer closes.

use serde_json::Value;

/// How many refused requests are remembered until answered; past it the oldest is forgotten
/// (its answer, should it come, is then judged as any other), so memory stays bounded.
const REMEMBERED: usize = 256;

/// The refused requests not yet answered, by sender and id.
#[derive(Debug, Default)]
pub struct Refused(Vec<(String, Value)>);

impl Refused {
    /// Notes `entry` (sent by `from`) when it is a request: a message with a method and an id.
    pub fn note(&mut self, from: &str, entry: &Value) {
        let Some(message) = entry.get("message") else {
            return;
        };
        let (Some(_), Some(id)) = (message.get("method"), message.get("id")) else {
            return;
        };
        if self.0.len() == REMEMBERED {
            self.0.remove(0);
        }
        self.0.push((from.to_owned(), id.clone()));
    }

    /// Whether `entry` (sent by `from`) is the answer to a refused request of another sender:
    /// a message with an id and no method. Its request is then forgotten.
    pub fn answers(&mut self, from: &str, entry: &Value) -> bool {
        let Some(message) = entry.get("message") else {
            return false;
        };
        let Some(id) = message
            .get("id")
            .filter(|_| message.get("method").is_none())
        else {
            return false;
        };
        match self
            .0
            .iter()
            .position(|(by, asked)| by != from && asked == id)
        {
            Some(i) => {
                self.0.remove(i);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_other_sides_answer_under_the_same_id_is_the_refused_requests() {
        let mut r = Refused::default();
        let request =
            json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 7, "method": "no/such"}});
        r.note("client", &request);
        // A notification is no request; its sender's own message under the id is no answer.
        r.note(
            "client",
            &json!({"from": "client", "message": {"method": "x"}}),
        );
        let answer = |id: Value| json!({"from": "server", "message": {"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}}});
        assert!(!r.answers("client", &answer(json!(7))));
        assert!(
            !r.answers("server", &answer(json!("7"))),
            "ids compare with their type"
        );
        assert!(r.answers("server", &answer(json!(7))));
        assert!(!r.answers("server", &answer(json!(7))), "answered once");
    }

    #[test]
    fn memory_is_bounded() {
        let mut r = Refused::default();
        for id in 0..REMEMBERED + 10 {
            r.note("client", &json!({"message": {"id": id, "method": "m"}}));
        }
        assert_eq!(r.0.len(), REMEMBERED);
        assert!(!r.answers("server", &json!({"message": {"id": 0, "result": {}}})));
        assert!(r.answers(
            "server",
            &json!({"message": {"id": REMEMBERED + 9, "result": {}}})
        ));
    }
}
