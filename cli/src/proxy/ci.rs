//! `--report junit|sarif|json FILE`: a session's findings in a form CI systems read, written
//! once the session ends. JUnit XML has one test case per finding (or one passing case), SARIF
//! 2.1.0 one result per finding located at its line of the recording, and JSON is the
//! `trace check --format json` lines (each finding, then the summary).

use std::path::Path;

use serde_json::{Value, json};

use super::session::Outcome;
use crate::check::finding::{At, Detail, Finding};
use crate::report::{Summary, finding_json};

/// The report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Junit,
    Sarif,
    Json,
}

/// Writes the report of `outcome` to `path`.
pub fn write(
    format: ReportFormat,
    path: &Path,
    outcome: &Outcome,
    summary: &Summary,
) -> std::io::Result<()> {
    let text = match format {
        ReportFormat::Junit => junit(outcome, summary),
        ReportFormat::Sarif => sarif(outcome, summary),
        ReportFormat::Json => json_lines(outcome, summary),
    };
    std::fs::write(path, text)
}

/// `truncated` when more findings were made than kept.
fn omitted(outcome: &Outcome) -> u64 {
    outcome.total.saturating_sub(outcome.kept.len() as u64)
}

fn json_lines(outcome: &Outcome, summary: &Summary) -> String {
    let mut out = String::new();
    for f in &outcome.kept {
        out.push_str(&finding_json(f).to_string());
        out.push('\n');
    }
    let line = json!({
        "type": "summary",
        "ok": outcome.total == 0,
        "findings": outcome.total,
        "omitted": omitted(outcome),
        "messages": summary.messages,
        "streams": summary.streams,
        "instances": summary.instances,
        "protocol": summary.protocol,
    });
    out.push_str(&line.to_string());
    out.push('\n');
    out
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 has no way to write other control characters.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

fn kind(f: &Finding) -> &'static str {
    match &f.detail {
        Detail::Json => "json",
        Detail::Framing => "framing",
        Detail::Stream => "stream",
        Detail::Version => "version",
        Detail::Field { .. } => "field",
        Detail::Sequence { .. } => "sequence",
    }
}

fn junit(outcome: &Outcome, summary: &Summary) -> String {
    let suite = xml_escape(&format!("agentwire proxy ({})", summary.protocol));
    let cases = outcome.kept.len().max(1);
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"{suite}\" \
         tests=\"{cases}\" failures=\"{}\">\n",
        outcome.kept.len()
    );
    if outcome.kept.is_empty() {
        out.push_str(&format!(
            "<testcase classname=\"{suite}\" name=\"{}\"/>\n",
            xml_escape(&summary.sentence())
        ));
    }
    for f in &outcome.kept {
        out.push_str(&format!(
            "<testcase classname=\"{suite}\" name=\"{}:{}\">\n<failure type=\"{}\" \
             message=\"{}\">{}</failure>\n</testcase>\n",
            xml_escape(&f.file),
            f.at,
            kind(f),
            xml_escape(&f.text),
            xml_escape(&f.to_string())
        ));
    }
    if omitted(outcome) > 0 {
        out.push_str(&format!(
            "<system-out>{} more finding(s) not listed</system-out>\n",
            omitted(outcome)
        ));
    }
    out.push_str("</testsuite>\n</testsuites>\n");
    out
}

fn sarif_result(f: &Finding) -> Value {
    let rule = match &f.detail {
        Detail::Field { rule, .. } => format!("field/{rule}"),
        Detail::Sequence { machine, .. } => format!("sequence/{machine}"),
        _ => kind(f).to_owned(),
    };
    let mut location = json!({"artifactLocation": {"uri": f.file}});
    if let At::Line(n) = f.at {
        location["region"] = json!({"startLine": n});
    }
    json!({
        "ruleId": rule,
        "level": "error",
        "message": {"text": f.text},
        "locations": [{"physicalLocation": location}],
    })
}

fn sarif(outcome: &Outcome, summary: &Summary) -> String {
    let results: Vec<Value> = outcome.kept.iter().map(sarif_result).collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "agentwire proxy",
                "version": env!("CARGO_PKG_VERSION"),
            }},
            "results": results,
            "properties": {
                "protocol": summary.protocol,
                "messages": summary.messages,
                "findings": outcome.total,
                "omitted": omitted(outcome),
            },
        }],
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome() -> Outcome {
        Outcome {
            kept: vec![Finding {
                file: "s.jsonl".into(),
                at: At::Line(2),
                text: "/message/id: expected <x> & \"y\" [type]".into(),
                detail: Detail::Field {
                    pointer: "/message/id".into(),
                    rule: "type".into(),
                    message: "m".into(),
                },
            }],
            total: 3,
            ..Outcome::default()
        }
    }

    #[test]
    fn junit_escapes_and_counts() {
        let text = junit(&outcome(), &Summary::default());
        assert!(text.contains("failures=\"1\""), "{text}");
        assert!(
            text.contains("expected &lt;x&gt; &amp; &quot;y&quot;"),
            "{text}"
        );
        assert!(text.contains("2 more finding(s)"), "{text}");
    }

    #[test]
    fn sarif_locates_each_result() {
        let doc: Value = serde_json::from_str(&sarif(&outcome(), &Summary::default())).unwrap();
        let r = &doc["runs"][0]["results"][0];
        assert_eq!(r["ruleId"], "field/type");
        assert_eq!(
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            2
        );
    }
}
