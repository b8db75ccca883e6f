//! Every mistake in #[validate(...)] attributes is reported at its span, all in one compile.
use agentwire::Validate;

#[derive(Validate)]
pub struct Settings {
    #[validate(min_lenght = 1)]
    pub name: String,
    #[validate(pattern = "^[a-z+$")]
    pub slug: String,
    #[validate(min_length = 5, max_length = 2)]
    pub code: String,
    #[validate(min_items = 1, format = "email")]
    pub title: String,
    #[validate(minimum = "zero", non_empty)]
    pub count: u32,
}

fn main() {}
