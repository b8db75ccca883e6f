//! Fenced code blocks of a Markdown document with the line each starts on, using a real
//! CommonMark parser so `~~~` fences, indented fences, info strings with attributes and CRLF
//! line ends all behave as a Markdown renderer would show them.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Parser, Tag, TagEnd};

/// One fenced block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The first word of the info string, lowercased (`ts`, `json`, `text`, ...).
    pub lang: String,
    /// The rest of the info string (`invalid`, `{.class}`, ...).
    pub attrs: String,
    /// The block's text, with `\n` line ends.
    pub text: String,
    /// 1-based line of the block's first content line in the document.
    pub line: usize,
    /// The nearest heading above the block.
    pub section: String,
}

/// Every fenced block of `doc`, in order.
pub fn blocks(doc: &str) -> Vec<Block> {
    let line_of = |offset: usize| doc[..offset.min(doc.len())].matches('\n').count() + 1;
    let mut out = Vec::new();
    let mut section = String::new();
    let mut heading: Option<String> = None;
    let mut current: Option<Block> = None;
    for (event, range) in Parser::new(doc).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) if level >= HeadingLevel::H1 => {
                heading = Some(String::new());
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = heading.take() {
                    section = h.trim().to_owned();
                }
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let info = info.trim();
                let (lang, attrs) = info.split_once(char::is_whitespace).unwrap_or((info, ""));
                let lang = lang
                    .trim_matches(|c| c == '{' || c == '}' || c == '.')
                    .to_lowercase();
                current = Some(Block {
                    lang,
                    attrs: attrs.trim().to_owned(),
                    text: String::new(),
                    line: line_of(range.start) + 1,
                    section: section.clone(),
                });
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(b) = current.as_mut() {
                    b.text.push_str(&t.replace("\r\n", "\n"));
                } else if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(b) = current.take() {
                    out.push(b);
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_of_every_style() {
        let doc = "# A\r\n\r\n```ts\r\ninterface X {}\r\n```\r\n\r\n## B\n\n  ~~~json invalid\n  {}\n  ~~~\n\n```{.text title=x}\nclient → server: a\n```\n";
        let b = blocks(doc);
        assert_eq!(b.len(), 3);
        assert_eq!(
            (b[0].lang.as_str(), b[0].line, b[0].text.as_str()),
            ("ts", 4, "interface X {}\n")
        );
        assert_eq!(
            (b[1].lang.as_str(), b[1].attrs.as_str(), b[1].line),
            ("json", "invalid", 10)
        );
        assert_eq!(b[1].text, "{}\n");
        assert_eq!(b[1].section, "B");
        assert_eq!(b[2].lang, "text");
    }
}
