//! A profile's rules checked against the service and compiled: each rpc's template parsed,
//! its variables and body field resolved on the request type; and the rule a request's
//! method and path select.

use agentwire_runtime::path_template::{Bindings, PathTemplate};
use prost_reflect::{FieldDescriptor, Kind};

use super::Profile;
use super::profile::Rule;
use super::transcode::resolve;
use crate::grpc_json::{ProfileError, Rpc, Schema};

/// Where a rule reads the request from besides its path.
#[derive(Debug, Clone)]
pub enum BodyMap {
    /// The body is the whole request (path variables set over it); no query parameters.
    Whole,
    /// The body is this field of the request; the other fields come from the query.
    Field(FieldDescriptor),
    /// No body: every field not in the path comes from the query.
    Nothing,
}

/// One compiled rule.
#[derive(Debug, Clone)]
pub struct Route {
    pub rule: Rule,
    pub template: PathTemplate,
    pub rpc: Rpc,
    pub body: BodyMap,
}

/// Every rule of a profile, compiled.
#[derive(Debug, Clone)]
pub struct Routes {
    all: Vec<Route>,
}

impl Routes {
    /// The rules of `profile` on `schema`'s service; a rule that does not fit is an error.
    pub fn new(profile: &Profile, schema: &Schema) -> Result<Self, ProfileError> {
        let all = profile
            .rules
            .iter()
            .map(|rule| compile(rule, schema))
            .collect::<Result<_, _>>()?;
        Ok(Routes { all })
    }

    /// The rule serving `method` at `path` (without its query) with what the path binds: of
    /// several that match, the one with the most literal segments, then the first written.
    pub fn find(&self, method: &str, path: &str) -> Option<(&Route, Bindings)> {
        let mut best: Option<(&Route, Bindings)> = None;
        for route in self.all.iter().filter(|r| r.rule.method == method) {
            let Some(bound) = route.template.matches(path) else {
                continue;
            };
            let better = best
                .as_ref()
                .is_none_or(|(b, _)| route.template.literals() > b.template.literals());
            if better {
                best = Some((route, bound));
            }
        }
        best
    }

    /// The rules of the rpc named `rpc`, in the order written.
    pub fn of_rpc(&self, rpc: &str) -> Vec<&Route> {
        self.all.iter().filter(|r| r.rule.rpc == rpc).collect()
    }
}

fn compile(rule: &Rule, schema: &Schema) -> Result<Route, ProfileError> {
    let fail = |msg: String| ProfileError::Rule(rule.rpc.to_owned(), msg);
    let rpc = schema
        .rpc(rule.rpc)
        .ok_or_else(|| fail("no such rpc (or it streams client messages)".to_owned()))?;
    let template = PathTemplate::parse(rule.path).map_err(|e| fail(e.to_string()))?;
    for v in template.variables() {
        let fields = resolve(&rpc.input, &v.field)
            .ok_or_else(|| fail(format!("`{}` is not a field of the request", v.field)))?;
        let last = fields.last().map(|f| (f.is_list() || f.is_map(), f.kind()));
        if !matches!(last, Some((false, Kind::String))) {
            let msg = format!("path variable `{}` is not a singular string field", v.field);
            return Err(fail(msg));
        }
    }
    let body = match rule.body {
        "" => BodyMap::Nothing,
        "*" => BodyMap::Whole,
        field => BodyMap::Field(
            rpc.input
                .get_field_by_name(field)
                .ok_or_else(|| fail(format!("body `{field}` is not a field of the request")))?,
        ),
    };
    Ok(Route {
        rule: *rule,
        template,
        rpc,
        body,
    })
}
