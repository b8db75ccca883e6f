//! Filling the pinned-source cache before a load: every pin a spec folder names (its
//! `types:`, its `proto.include` entries, and the common Google protos its imports need),
//! fetched with the registry's own client. Loading itself only reads the cache.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::front::proto_include::{common_pin, needs_common};
use crate::front::sources::{Pin, RawPin, cache_root, cached, fetch};

/// Fetches every pinned source the spec folders under `specs` name (each folder's
/// `protocol.yaml`); a folder without a pin, or whose `protocol.yaml` does not parse, is left
/// to the loader to report.
pub fn fetch_all(spec_dirs: &[PathBuf]) -> Result<Vec<String>, String> {
    let mut fetched = Vec::new();
    for dir in spec_dirs {
        let mut pins: Vec<Pin> = pin_of(dir)
            .into_iter()
            .chain(include_pins_of(dir))
            .chain(version_pins_of(dir))
            .collect();
        if needs_common(dir) {
            pins.push(common_pin());
        }
        let root = cache_root(dir);
        for pin in pins {
            if cached(&pin, &root).is_ok() {
                continue;
            }
            fetch(&pin, &root).map_err(|e| format!("{}: {e}", dir.display()))?;
            fetched.push(pin.spec());
        }
    }
    Ok(fetched)
}

/// The valid pins among the `types:` of `dir/protocol.yaml`'s `versions:` entries and of
/// their unstable forms (`unstable.types`).
pub fn version_pins_of(dir: &Path) -> Vec<Pin> {
    let Ok(text) = std::fs::read_to_string(dir.join("protocol.yaml")) else {
        return Vec::new();
    };
    let Ok(value) = serde_saphyr::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let entries = value["versions"].as_array().cloned().unwrap_or_default();
    entries
        .into_iter()
        .flat_map(|e| [e["types"].clone(), e["unstable"]["types"].clone()])
        .filter_map(|types| serde_json::from_value::<RawPin>(types).ok())
        .filter_map(|raw| Pin::from_raw(raw).ok())
        .collect()
}

/// The valid pins among `dir/protocol.yaml`'s `proto.include` entries.
pub fn include_pins_of(dir: &Path) -> Vec<Pin> {
    let Ok(text) = std::fs::read_to_string(dir.join("protocol.yaml")) else {
        return Vec::new();
    };
    let Ok(value) = serde_saphyr::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let entries = value["proto"]["include"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    entries
        .into_iter()
        .filter_map(|e| serde_json::from_value::<RawPin>(e).ok())
        .filter_map(|raw| Pin::from_raw(raw).ok())
        .collect()
}

/// The pin in `dir/protocol.yaml`'s `types:`, if it has a valid one.
pub fn pin_of(dir: &Path) -> Option<Pin> {
    #[derive(Deserialize)]
    struct Types {
        types: serde_json::Value,
    }
    let text = std::fs::read_to_string(dir.join("protocol.yaml")).ok()?;
    // Only `types` matters here; every other key is the loader's to check.
    let value: serde_json::Value = serde_saphyr::from_str(&text).ok()?;
    let types: Types = serde_json::from_value(value).ok()?;
    let raw: RawPin = serde_json::from_value(types.types).ok()?;
    Pin::from_raw(raw).ok()
}
