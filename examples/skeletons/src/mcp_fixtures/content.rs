//! What both eras' fixtures answer alike: the content tools, the resources and template, the
//! prompts. Each era wraps these in its own result (2026-07-28 adds `resultType` and caching
//! hints) and answers an unknown resource with its own error code.

use serde_json::{Value, json};

use super::{PNG, WAV, text};

/// The content blocks of the content tool `name`, and whether it reports a failure; `None`
/// when `name` is no content tool.
pub fn tool(name: &str) -> Option<(Value, bool)> {
    let image = json!({"type": "image", "data": PNG, "mimeType": "image/png"});
    let resource = json!({"type": "resource", "resource": {
        "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "An embedded resource."}});
    let content = match name {
        "test_simple_text" => json!([text("A simple text answer.")]),
        "test_image_content" => json!([image]),
        "test_audio_content" => json!([{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]),
        "test_embedded_resource" => json!([resource]),
        "test_multiple_content_types" => json!([text("Three kinds of content:"), image, resource]),
        "test_error_handling" => return Some((json!([text("this tool fails on purpose")]), true)),
        _ => return None,
    };
    Some((content, false))
}

/// The resources listed (`watched`: with the one 2025-11-25's subscription scenarios watch).
pub fn resources(watched: bool) -> Value {
    let mut listed = vec![
        json!({"uri": "test://static-text", "name": "static text", "mimeType": "text/plain"}),
        json!({"uri": "test://static-binary", "name": "static binary", "mimeType": "image/png"}),
    ];
    if watched {
        listed.push(
            json!({"uri": "test://watched-resource", "name": "watched", "mimeType": "text/plain"}),
        );
    }
    Value::Array(listed)
}

/// The resource templates listed.
pub fn templates() -> Value {
    json!([{"uriTemplate": "test://template/{id}/data", "name": "data by id",
        "mimeType": "application/json"}])
}

/// The contents of the resource at `uri`; `None` when there is none.
pub fn read(uri: &str) -> Option<Value> {
    Some(match uri {
        "test://static-text" | "test://watched-resource" => {
            json!({"uri": uri, "mimeType": "text/plain", "text": "Static text of the fixtures."})
        }
        "test://static-binary" => json!({"uri": uri, "mimeType": "image/png", "blob": PNG}),
        _ => {
            let id = uri
                .strip_prefix("test://template/")
                .and_then(|rest| rest.strip_suffix("/data"))?;
            json!({"uri": uri, "mimeType": "application/json", "text": json!({"id": id}).to_string()})
        }
    })
}

/// The prompts listed, `more` appended.
pub fn prompts(more: &[Value]) -> Value {
    let mut listed = vec![
        json!({"name": "test_simple_prompt", "description": "A prompt without arguments."}),
        json!({"name": "test_prompt_with_arguments", "description": "Uses arg1 and arg2.",
            "arguments": [{"name": "arg1", "required": true}, {"name": "arg2", "required": true}]}),
        json!({"name": "test_prompt_with_embedded_resource", "description": "Embeds a resource.",
            "arguments": [{"name": "resourceUri", "required": true}]}),
        json!({"name": "test_prompt_with_image", "description": "Shows an image."}),
    ];
    listed.extend_from_slice(more);
    Value::Array(listed)
}

/// The messages of prompt `name`, reading its arguments with `arg`; `None` when there is no
/// such prompt.
pub fn prompt(name: &str, arg: impl Fn(&str) -> String) -> Option<Value> {
    let user = |content: Value| json!({"role": "user", "content": content});
    let messages = match name {
        "test_simple_prompt" => vec![user(text("A prompt without arguments."))],
        "test_prompt_with_arguments" => vec![user(text(&format!(
            "arg1 is '{}' and arg2 is '{}'",
            arg("arg1"),
            arg("arg2")
        )))],
        "test_prompt_with_embedded_resource" => vec![
            user(json!({"type": "resource", "resource": {
                "uri": arg("resourceUri"), "mimeType": "text/plain", "text": "The embedded resource."}})),
            user(text("Read the resource above.")),
        ],
        "test_prompt_with_image" => vec![
            user(json!({"type": "image", "data": PNG, "mimeType": "image/png"})),
            user(text("Describe the image above.")),
        ],
        _ => return None,
    };
    Some(Value::Array(messages))
}

/// The completion values offered for any argument.
pub fn completion() -> Value {
    json!({"values": ["one", "two"], "total": 2, "hasMore": false})
}
