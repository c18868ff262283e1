//! The PARA search contract: the JSON shapes agents and applications exchange, with the exact
//! camelCase field names of the design, validated on parse and on construction.

mod category;
pub(crate) mod checks;
mod item;
mod request;
mod response;
mod result;

pub use category::{Category, ItemType};
pub use checks::{LIMIT_RANGE, MAX_RESULT_WINDOW, MAX_TERM_BYTES, SUPPORTED_YEARS};
pub use item::Item;
pub use request::{parse_instant, DateRange, SearchFilters, SearchMode, SearchRequest, TagFilter};
pub use response::{
    Action, Clarification, NavigationTarget, NavigatorResponse, NoHits, SearchMetadata,
};
pub use result::{ResultMetadata, SearchResult};
